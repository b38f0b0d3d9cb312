package fakeserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Built-in catalog names.
const (
	// CatalogDocs is the default catalog: the tool lookup, the resource
	// docs://readme and the prompt summarize.
	CatalogDocs = "docs"
	// CatalogRich adds tools that exercise every client feature: sampling,
	// elicitation, roots, logging, progress, list-changed, and enough tools
	// to page through (page size 10).
	CatalogRich = "rich"
)

// Version is the fake server's version in its serverInfo.
const Version = "v1.0.0"

// Options configures a fake [Server]. A nil *Options means defaults.
type Options struct {
	// Catalog names the catalog: CatalogDocs (the default when Catalog and
	// Custom are empty), CatalogRich, or a catalog registered with
	// [Register].
	Catalog string
	// Custom is a catalog of your own, served instead of a named one;
	// Catalog must then be empty. It need not be registered, except to be
	// served by a stdio child.
	Custom *Catalog
	// Faults are the scripted misbehaviours, applied in order. Several
	// faults may name the same tool.
	Faults []Fault
	// CountFile, if set, is rewritten atomically (a temporary file renamed
	// over it) with the counts as JSON after each round. New writes it
	// once, empty. It is the side channel through which a test reads the
	// counts of a fake server in another process (see [ReadCounts]).
	CountFile string
	// Logger receives the server's diagnostics. If nil, nothing is logged.
	Logger *slog.Logger
	// Revision pins the protocol revision served, in every mode:
	// [Revision20251125] serves as a server from before 2026-07-28 (no
	// server/discover), [Revision20260728] only the current revision (no
	// initialize). Empty serves both, as the server package does. Anything
	// else is an error matching [ErrBadCatalog] whose text names it.
	Revision string
}

// Server is a deterministic fake MCP server: a catalog (a built-in catalog
// or a [Catalog] of your own), deterministic replies, scripted faults, and a
// count of every tool execution. [Wrap] makes one around a server under
// test instead.
type Server struct {
	srv       *server.Server // nil when wrapping a go-sdk server
	mcp       *mcp.Server
	name      string
	faults    []Fault
	countFile string
	logger    *slog.Logger
	proc      *process // nil in-process
	wrapped   bool
	detached  atomic.Bool   // a wrapped server's middleware passes through
	quit      chan struct{} // closed by Close: hung and delayed calls end
	closeOnce sync.Once

	// mu guards calls, counts, the count file, ended and ephemeral.
	mu        sync.Mutex
	calls     map[string]int // first rounds begun, by tool: the next Call.N
	counts    Counts
	ended     map[string]chan struct{} // by session id: closed when its client ends it
	ephemeral bool                     // the rich catalog's toggle tool has added "ephemeral"
}

// sessionEnded returns a channel closed when the client ends the session
// with the given id (a DELETE), or nil for a call without a session.
func (s *Server) sessionEnded(req *mcp.CallToolRequest) <-chan struct{} {
	if req == nil || req.Session == nil || req.Session.ID() == "" {
		return nil
	}
	id := req.Session.ID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended == nil {
		s.ended = map[string]chan struct{}{}
	}
	c, ok := s.ended[id]
	if !ok {
		c = make(chan struct{})
		s.ended[id] = c
	}
	return c
}

// endSession releases the calls that a hang or delay fault holds in the
// session with the given id: its client has ended it, and the go-sdk would
// otherwise wait for them before closing it.
func (s *Server) endSession(id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.ended[id]; ok {
		close(c)
		delete(s.ended, id)
	}
}

// New returns a fake server. Its errors come from its options, which often
// come from scripts and flags:
//   - an unknown catalog or revision, or an invalid custom catalog
//     (matching [ErrBadCatalog]);
//   - an invalid fault;
//   - a fault for a tool the catalog does not have (wrapping
//     [transport.ErrBadFault]);
//   - a fault that acts only in a child process (a [*PathError]).
func New(opts *Options) (*Server, error) { return newServer(opts, nil) }

// newServer builds the server; proc is set for a stdio child.
func newServer(opts *Options, proc *process) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	cat, err := resolveCatalog(o.Catalog, o.Custom)
	if err != nil {
		return nil, err
	}
	if err := checkRevision(o.Revision); err != nil {
		return nil, err
	}
	s := &Server{
		name:      cat.name,
		faults:    o.Faults,
		countFile: o.CountFile,
		logger:    discardIfNil(o.Logger),
		proc:      proc,
		calls:     map[string]int{},
		counts:    newCounts(),
		quit:      make(chan struct{}),
	}
	maxResult, err := s.checkFaults(func(tool string) bool {
		return cat.has(tool) || (tool == envTool && s.hasFault(FaultEnv))
	}, cat.hasSkill, proc != nil)
	if err != nil {
		return nil, err
	}
	s.srv, err = server.New(cat.name, cat.version, &server.Options{
		MaxResultBytes: maxResult,
		Logger:         s.logger,
		PageSize:       cat.pageSize,
		Instructions:   cat.instructions,
		SessionID:      sessionIDs(),
		StateKey:       stateKey,
		// Continuations carry no issue time, so that the same calls give
		// the same bytes; each is still accepted once.
		StateTTL: -1,
		Tasks:    s.taskOptions(),
		Skills:   skillOptions(cat.skills),
	})
	if err != nil {
		return nil, err
	}
	s.mcp = s.srv.MCP()
	if o.Revision != "" {
		s.mcp.AddReceivingMiddleware(pinRevision(o.Revision))
	}
	if err := s.installSkillFaults(cat); err != nil {
		return nil, err
	}
	if err := cat.install(s); err != nil {
		return nil, err
	}
	if s.hasFault(FaultEnv) {
		if err := s.addTool(envToolDef(), envReply); err != nil {
			return nil, err
		}
	}
	if err := s.initCountFile(); err != nil {
		if proc != nil {
			return nil, err
		}
		s.logger.Error("count file", "error", err)
	}
	return s, nil
}

func discardIfNil(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return l
}

// checkFaults validates the fault script against the tools and skills that
// exist (hasSkill nil: none can be tampered with) and where the server
// runs, and returns the result bound the oversize faults need (0: the
// default).
func (s *Server) checkFaults(has, hasSkill func(name string) bool, child bool) (maxResult int, err error) {
	for _, f := range s.faults {
		if err := f.check(); err != nil {
			return 0, err
		}
		if !child {
			if err := checkProcess([]Fault{f}); err != nil {
				return 0, err
			}
		}
		what := "catalog"
		if s.wrapped {
			what = "server"
		}
		if isSkillKind(f.Kind) {
			if hasSkill == nil {
				return 0, fmt.Errorf("fakeserver: fault %q: %w: a wrapped server's skills are its own", f, transport.ErrBadFault)
			}
			if !hasSkill(f.Tool) {
				return 0, fmt.Errorf("fakeserver: fault %q: %w: %s %q has no skill %q", f, transport.ErrBadFault, what, s.name, f.Tool)
			}
			continue
		}
		if f.Tool != "" && !has(f.Tool) {
			if s.wrapped {
				what = "server"
			}
			return 0, fmt.Errorf("fakeserver: fault %q: %w: %s %q has no tool %q", f, transport.ErrBadFault, what, s.name, f.Tool)
		}
		if s.wrapped && isTaskKind(f.Kind) {
			return 0, fmt.Errorf("fakeserver: fault %q: %w: a wrapped server's tools are its own; register them with server.RegisterTaskTool", f, transport.ErrBadFault)
		}
		if f.Kind == FaultOversize {
			maxResult = max(maxResult, f.Bytes+64<<10)
		}
	}
	if maxResult > 0 {
		maxResult = max(maxResult, server.DefaultMaxResultBytes)
	}
	return maxResult, nil
}

// stateKey seals the request state of the fake's input-required results
// (server.Options.StateKey). It is fixed, and public in this source, so
// that the same calls give the same bytes: a fake is for tests.
var stateKey = []byte("fakeserver: deterministic state key, not a secret")

// sessionIDs numbers HTTP sessions fake-1, fake-2, … so that they are
// reproducible.
func sessionIDs() func() string {
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
	return slices.ContainsFunc(s.faults, func(f Fault) bool { return f.Kind == k })
}

// Server returns the publisher registry underneath: nil for a fake that
// wraps a go-sdk server ([Wrap]). A tool registered on it directly is
// served, but neither counted nor open to faults: declare your tools in a
// [Catalog], or [Wrap] your own server.
func (s *Server) Server() *server.Server { return s.srv }

// MCP returns the go-sdk server underneath.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Name returns the catalog's name (a built-in catalog's or a custom one's),
// which is also the server's name; for a wrapped server, its name.
func (s *Server) Name() string { return s.name }

// Factory returns an in-process transport.Factory: each connection is a
// new session of this fake server (its task tools run as tasks, as over
// HTTP and stdio). If a fault does not act in-process (see [Path]), each
// connection fails at once with its [*PathError].
func (s *Server) Factory() transport.Factory {
	var f transport.Factory = inprocess.New(s.mcp)
	if s.srv != nil {
		f = s.srv.Factory()
	}
	if err := CheckPath(s.faults, Path{}); err != nil {
		return refusedFactory{Factory: f, err: err}
	}
	return f
}

// Close releases every call held by a hang or delay fault: each returns at
// once, as if cancelled, and later ones do not wait; tasks still running
// are cancelled, and Close waits for them. A go-sdk session
// waits for its calls before it closes, so a session with a hung call
// (whose client gave up on it) closes only after this. Sessions stay open
// until their clients close them (over HTTP, until the handler's Close).
// Close may be called more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { close(s.quit) })
	if s.srv != nil && !s.wrapped {
		s.srv.Close() // ends the tasks still running, and waits for them
	}
	return nil
}

// Sessions returns the number of sessions open now.
func (s *Server) Sessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// errHung is what a hung call returns once it is cancelled; the client no
// longer waits for it.
var errHung = errors.New("hung call cancelled")
