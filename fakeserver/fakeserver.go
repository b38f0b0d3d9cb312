package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/internal/atomicfile"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Profile names.
const (
	// ProfileDocs is the default profile: the tool lookup, the resource
	// docs://readme and the prompt summarize.
	ProfileDocs = "docs"
	// ProfileRich adds tools that exercise every client feature: sampling,
	// elicitation, roots, logging, progress, list-changed, and enough tools
	// to page through (page size 10).
	ProfileRich = "rich"
)

// Version is the fake server's version in its serverInfo.
const Version = "v1.0.0"

// Options configures a fake [Server]. A nil *Options means defaults.
type Options struct {
	// Profile is ProfileDocs (the default when empty) or ProfileRich.
	Profile string
	// Faults are the scripted misbehaviours, applied in order. Several
	// faults may name the same tool.
	Faults []Fault
	// CountFile, if set, is rewritten atomically (a temporary file renamed
	// over it) with the execution counts as JSON after each execution, and
	// once, empty, by New: the side channel through which a test reads the
	// counts of a fake server in another process (see [ReadCounts]).
	CountFile string
	// Logger receives the server's diagnostics. If nil, nothing is logged.
	Logger *slog.Logger
}

// Server is a deterministic fake MCP server: a fixed catalog chosen by its
// profile, deterministic replies, scripted faults, and a count of every
// tool execution.
type Server struct {
	srv       *server.Server
	profile   string
	faults    []Fault
	countFile string
	logger    *slog.Logger
	proc      *process // nil in-process

	// mu guards counts, the count file and ephemeral.
	mu        sync.Mutex
	counts    map[string]int
	ephemeral bool // the rich profile's toggle tool has added "ephemeral"
}

// New returns a fake server. It panics on programmer errors: an unknown
// profile, an invalid fault, a fault for a tool the profile does not have,
// or a fault that works only in a stdio child (see [FaultKind]).
func New(opts *Options) *Server {
	s, err := newServer(opts, nil)
	if err != nil {
		panic(err)
	}
	return s
}

// newServer builds the server; proc is set for a stdio child.
func newServer(opts *Options, proc *process) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Profile == "" {
		o.Profile = ProfileDocs
	}
	cat, ok := catalogs[o.Profile]
	if !ok {
		return nil, fmt.Errorf("fakeserver: unknown profile %q (want %q or %q)", o.Profile, ProfileDocs, ProfileRich)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		profile:   o.Profile,
		faults:    o.Faults,
		countFile: o.CountFile,
		logger:    logger,
		proc:      proc,
		counts:    make(map[string]int),
	}
	maxResult := 0
	for _, f := range o.Faults {
		if err := f.check(); err != nil {
			return nil, fmt.Errorf("fakeserver: fault %q: %w", f, err)
		}
		if f.stdioOnly() && proc == nil {
			return nil, fmt.Errorf("fakeserver: fault %q: %w: works only in a stdio child (fakeserver.Main)", f, ErrBadFault)
		}
		if f.Tool != "" && !cat.has(f.Tool) && !(f.Tool == envTool && s.hasFault(FaultEnv)) {
			return nil, fmt.Errorf("fakeserver: fault %q: %w: profile %q has no tool %q", f, ErrBadFault, o.Profile, f.Tool)
		}
		if f.Kind == FaultOversize {
			maxResult = max(maxResult, f.Bytes+64<<10)
		}
	}
	if maxResult > 0 {
		maxResult = max(maxResult, server.DefaultMaxResultBytes)
	}
	s.srv = server.New(o.Profile, Version, &server.Options{
		MaxResultBytes: maxResult,
		Logger:         logger,
		PageSize:       cat.pageSize,
		Instructions:   cat.instructions,
		SessionID:      s.sessionIDs(),
	})
	if err := cat.install(s); err != nil {
		return nil, err
	}
	if s.hasFault(FaultEnv) {
		if err := s.addTool(envToolDef(), envHandler); err != nil {
			return nil, err
		}
	}
	if s.countFile != "" {
		s.mu.Lock()
		err := s.writeCounts()
		s.mu.Unlock()
		if err != nil {
			if proc != nil {
				return nil, err
			}
			logger.Error("count file", "error", err)
		}
	}
	return s, nil
}

// sessionIDs numbers HTTP sessions fake-1, fake-2, … so that they are
// reproducible.
func (s *Server) sessionIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("fake-%d", n)
	}
}

func (s *Server) hasFault(k FaultKind) bool {
	for _, f := range s.faults {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// Server returns the publisher registry underneath.
func (s *Server) Server() *server.Server { return s.srv }

// Profile returns the profile's name, which is also the server's name.
func (s *Server) Profile() string { return s.profile }

// Factory returns an in-process transport.Factory: each connection is a
// new session of this fake server.
func (s *Server) Factory() transport.Factory { return s.srv.Factory() }

// Executions returns how many times tool has been executed: a call counts
// once its input has passed validation and its handler has started,
// whatever happens next (a fault, an error, a crash).
func (s *Server) Executions(tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[tool]
}

// Counts returns a copy of the execution count of every tool executed at
// least once.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.counts)
}

// count records one execution of tool, and rewrites the count file.
func (s *Server) count(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[tool]++
	if s.countFile != "" {
		if err := s.writeCounts(); err != nil {
			s.logger.Error("count file", "error", err)
		}
	}
}

// writeCounts replaces the count file with the counts. s.mu must be held.
func (s *Server) writeCounts() error {
	b, err := json.Marshal(s.counts) // keys sorted
	if err != nil {
		return err
	}
	return writeFileAtomic(s.countFile, append(b, '\n'))
}

// writeFileAtomic replaces path with data whole (internal/atomicfile).
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("fakeserver: writing %s: %w", path, err)
	}
	return nil
}

// ReadCounts reads a count file written by a fake server (--count-file or
// Options.CountFile).
func ReadCounts(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fakeserver: count file: %w", err)
	}
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("fakeserver: count file %s: %w", path, err)
	}
	if m == nil {
		m = map[string]int{}
	}
	return m, nil
}

// addTool registers a tool whose every execution is counted and whose
// scripted faults are applied before h runs.
func (s *Server) addTool(t *mcp.Tool, h server.ToolHandler) error {
	name := t.Name
	return s.srv.RegisterTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.count(name)
		for _, f := range s.faults {
			if f.Tool != name {
				continue
			}
			res, err, done := s.apply(ctx, f)
			if done {
				return res, err
			}
		}
		return h(ctx, req)
	})
}

// errHung is what a hung call returns once it is cancelled; the client no
// longer waits for it.
var errHung = errors.New("hung call cancelled")

// apply performs fault f on a call; done reports that the call's outcome is
// decided.
func (s *Server) apply(ctx context.Context, f Fault) (res *mcp.CallToolResult, err error, done bool) {
	switch f.Kind {
	case FaultDelay:
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err(), true
		}
	case FaultHang:
		<-ctx.Done()
		return nil, errHung, true
	case FaultError:
		return nil, errors.New(f.message("scripted failure")), true
	case FaultPanic:
		panic(f.message("scripted panic"))
	case FaultOversize:
		return text(strings.Repeat("x", f.Bytes)), nil, true
	case FaultCrash:
		s.proc.exit(cmp0(f.Code, 1))
	case FaultMalformed:
		s.proc.writeMalformed()
	case FaultFloodStderr:
		s.proc.flood(f.Bytes)
	}
	return nil, nil, false
}

func cmp0(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
