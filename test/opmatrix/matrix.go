package opmatrix

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/looprig/mcp/transport/streamablehttp"
)

// A Kind is a transport, the matrix's columns with the revisions.
type Kind string

const (
	InProcess Kind = "in-process"
	Stdio     Kind = "stdio"
	HTTP      Kind = "http"           // Streamable HTTP, stateful (sessions for 2025-11-25)
	Stateless Kind = "http stateless" // Streamable HTTP, no sessions
	SSE       Kind = "sse"            // the legacy HTTP+SSE transport
)

// Kinds are the transports, in the table's order.
var Kinds = []Kind{InProcess, Stdio, HTTP, Stateless, SSE}

// Revisions are the protocol revisions, in the table's order: the two
// first-class ones, and legacy SSE's own.
var Revisions = []string{protocol.Revision20260728, protocol.Revision20251125, protocol.Revision20241105}

// profiles are the client profiles that pin each revision.
var profiles = map[string]client.Profile{
	protocol.Revision20260728: client.Profile20260728,
	protocol.Revision20251125: client.Profile20251125,
	protocol.Revision20241105: client.ProfileLegacy,
}

// Exists reports whether srv can be reached over kind at rev, and why
// not.
func Exists(srv Server, kind Kind, rev string) (bool, string) {
	switch {
	case kind == SSE && rev != protocol.Revision20241105:
		return false, "legacy SSE speaks 2024-11-05 only"
	case kind != SSE && rev == protocol.Revision20241105:
		return false, "2024-11-05 is legacy SSE's revision only"
	case srv == SDK && kind == HTTP && rev == protocol.Revision20260728:
		return false, "the go-sdk serves 2026-07-28 only statelessly"
	}
	return true, ""
}

// Modes: how a session is made.
const (
	Live     = "live"
	Recorded = "cassette.Open record"
	Replayed = "cassette replay"
)

// A Cell is one operation made one way, against one server over one
// transport at one revision, in one mode.
type Cell struct {
	Server Server
	Kind   Kind
	Rev    string
	Mode   string
	Key
}

// A Report collects the cells a matrix ran, and its checks of whole
// recordings (the same bytes twice, no drift in Verify, a clean replay).
// It is safe for concurrent use.
type Report struct {
	mu     sync.Mutex
	cells  map[Cell]string // "" passed, else why not
	checks map[string]string
}

func NewReport() *Report { return &Report{cells: map[Cell]string{}, checks: map[string]string{}} }

func (r *Report) cell(c Cell, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cells[c] = failure
}

// Check records a check of a group: name, and "" when it passed.
func (r *Report) Check(g Group, name, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks[g.String()+": "+name] = failure
}

// A Group is one server over one transport at one revision: one server
// shared by every session of its cells, which run one after the other.
//
// A task group (Tasks set) is the same server offering the tasks
// extension, with task tools, and a client that opts into it: it makes
// the task operations only, and the other groups make all but those.
type Group struct {
	Server Server
	Kind   Kind
	Rev    string
	Tasks  bool
}

func (g Group) String() string {
	s := fmt.Sprintf("%s/%s/%s", g.Server, g.Kind, g.Rev)
	if g.Tasks {
		s += "+tasks"
	}
	return s
}

// Groups returns every group that exists: each server over each
// transport at each revision, and a task group beside each that can make
// a task.
func Groups() []Group {
	var out []Group
	for _, s := range Servers {
		for _, k := range Kinds {
			for _, rev := range Revisions {
				if ok, _ := Exists(s, k, rev); !ok {
					continue
				}
				out = append(out, Group{Server: s, Kind: k, Rev: rev})
				if ok, _ := (Group{Server: s, Kind: k, Rev: rev, Tasks: true}).Makes(OpTask); ok {
					out = append(out, Group{Server: s, Kind: k, Rev: rev, Tasks: true})
				}
			}
		}
	}
	return out
}

// A Running is a group's server, started, and how to reach it.
type Running struct {
	Group
	mu     sync.Mutex // guards served and h
	served *served
	h      http.Handler // HTTP kinds: what the listener serves
	url    string       // HTTP kinds
	exe    string       // stdio
}

// ServeHTTP serves the group's current server.
func (l *Running) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	h := l.h
	l.mu.Unlock()
	h.ServeHTTP(w, r)
}

// Fresh gives the fake server's groups a new fake for the next session:
// a fake numbers the calls of each tool across its sessions (a
// continuation's requestState carries the number), so that each session,
// live, recorded or replayed, starts from call 1, as it does in a stdio
// child. The other servers keep no count, and are kept.
func (l *Running) Fresh(t testing.TB) {
	t.Helper()
	if l.Server != Fake || l.Kind == Stdio {
		return
	}
	s, err := newServed(l.Server, l.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.served = s
	if l.Kind != InProcess {
		h, stop, err := s.handler(l.Kind)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		l.h = h
	}
}

// Start starts g's server for t, stopped at cleanup.
func Start(t testing.TB, g Group) *Running {
	t.Helper()
	l := &Running{Group: g}
	switch g.Kind {
	case Stdio:
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		l.exe = exe
		return l
	}
	s, err := newServed(g.Server, g.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	l.served = s
	if g.Kind == InProcess {
		return l
	}
	h, stop, err := s.handler(g.Kind)
	if err != nil {
		t.Fatal(err)
	}
	l.h = h
	ts := httptest.NewServer(l)
	t.Cleanup(func() {
		s.stop() // first: its handlers still waiting return, which Close waits for
		stop()
		ts.Close()
	})
	l.url = ts.URL + "/mcp"
	return l
}

// URL returns the endpoint of an HTTP group's server.
func (l *Running) URL() string { return l.url }

// Factory returns a new factory of the live server.
func (l *Running) Factory(t testing.TB) transport.Factory {
	t.Helper()
	var f transport.Factory
	var err error
	switch l.Kind {
	case InProcess:
		l.mu.Lock()
		s := l.served
		l.mu.Unlock()
		switch {
		case s.fake != nil:
			f = s.fake.Factory()
		case s.own != nil:
			f = s.own.Factory()
		default:
			f = inprocessFactory(s.mcp)
		}
	case Stdio:
		f, err = stdio.New(l.exe, nil, &stdio.Options{Env: ChildEnv(l.Group)})
	case HTTP, Stateless:
		f, err = streamablehttp.New(l.url, nil)
	case SSE:
		f, err = sse.New(l.url, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// ChildEnv is the environment of a stdio child of the test binary serving
// g's server (see ServeIfChild).
func ChildEnv(g Group) map[string]string {
	env := map[string]string{childEnv: string(g.Server), "GORACE": "atexit_sleep_ms=0"}
	if g.Tasks {
		env[TasksEnv] = "1"
	}
	return env
}

// Definition returns a client Definition of f at g's revision.
func (g Group) Definition(f transport.Factory) client.Definition {
	skills, _ := g.Makes(OpSkillsList)
	return client.Definition{Name: "opmatrix", Profile: profiles[g.Rev], Transport: f, Tasks: g.Tasks, Skills: skills}
}

// Session runs the script through f, failing t if it does not connect
// or close cleanly.
func Session(t testing.TB, g Group, f transport.Factory) map[Key]Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := Run(ctx, g, g.Definition(f))
	if err != nil {
		t.Errorf("%s: %v", g, err)
	}
	return out
}

// expectedClass is what a live operation must give: success, but for
// what the protocol makes an error.
func expectedClass(g Group, k Key) string {
	switch {
	case k.Op == OpCancel && k.API == APIClient:
		return "timeout"
	case k.Op == OpCancel:
		return "cancelled"
	case k.Op == OpTaskCancel:
		return "timeout"
	case k.Op == OpReadMissing && k.API == APIClient:
		return "server" // the server's JSON-RPC error, as a *client.Error
	case k.Op == OpReadMissing:
		return "json-rpc -32602" // resource not found, since 2025-11-25 (-32002 before)
	}
	return ""
}

// expectedResult is what a live operation must give, where the protocol
// says what: a given-up task, polled after, was cancelled by the client.
var expectedResult = map[string]string{OpTaskCancel: "then cancelled"}

// Judge records the cells of one session in mode: live cells pass when
// they give what the protocol says; others when they give what live gave.
func (r *Report) Judge(g Group, mode string, live, got map[Key]Outcome) {
	for _, op := range Ops {
		if ok, _ := g.Makes(op); !ok {
			continue
		}
		for _, api := range APIs {
			if !made(op, api) {
				continue
			}
			k := Key{op, api}
			c := Cell{g.Server, g.Kind, g.Rev, mode, k}
			o, ok := got[k]
			switch {
			case !ok:
				r.cell(c, "not made")
			case mode == Live && o.Class != expectedClass(g, k):
				r.cell(c, fmt.Sprintf("gave %s, want class %q", o, expectedClass(g, k)))
			case mode == Live && expectedResult[op] != "" && o.Result != expectedResult[op]:
				r.cell(c, fmt.Sprintf("gave %s, want %q", o, expectedResult[op]))
			case mode != Live && o != live[k]:
				r.cell(c, fmt.Sprintf("gave %s, live gave %s", o, live[k]))
			default:
				r.cell(c, "")
			}
		}
	}
}

// RecordTwice records a session to a file twice (record records one to
// path and returns what it gave), checks the two files have the same bytes
// and that Verify of the first against a live server (verify makes its
// factory) finds no drift, judges both sessions as mode, and returns the
// first file's path ("" when there is none).
func (r *Report) RecordTwice(t testing.TB, g Group, mode string, live map[Key]Outcome, record func(path string) map[Key]Outcome, verify func() transport.Factory) string {
	t.Helper()
	dir := t.TempDir()
	var files [][]byte
	for i := range 2 {
		path := filepath.Join(dir, fmt.Sprintf("rec-%d.jsonl", i))
		got := record(path)
		r.Judge(g, mode, live, got)
		data, err := os.ReadFile(path)
		if err != nil {
			r.Check(g, mode+": recorded", err.Error())
			return ""
		}
		files = append(files, data)
	}
	first := filepath.Join(dir, "rec-0.jsonl")
	if debug {
		name := strings.NewReplacer("/", "_", " ", "-").Replace(g.String() + "-" + mode)
		os.WriteFile(filepath.Join(os.TempDir(), "opmatrix-"+name+"-a.jsonl"), files[0], 0o644)
		os.WriteFile(filepath.Join(os.TempDir(), "opmatrix-"+name+"-b.jsonl"), files[1], 0o644)
	}
	if g.Tasks {
		files[0], files[1] = taskTimesOut(files[0]), taskTimesOut(files[1])
	}
	if !bytes.Equal(files[0], files[1]) {
		r.Check(g, mode+": the same bytes twice", cmp.Diff(string(files[0]), string(files[1])))
	} else {
		r.Check(g, mode+": the same bytes twice", "")
	}
	if verify != nil {
		c, err := cassette.Load(first)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = cassette.Verify(ctx, c, verify(), nil)
			cancel()
		}
		r.Check(g, mode+": Verify finds no drift", errText(err))
	}
	return first
}

// taskTimes are the times a task's server reports (SEP-2663's createdAt
// and lastUpdatedAt, in a task handle and in each poll's answer): the
// server's clock, which the recorder keeps as it came.
var taskTimes = regexp.MustCompile(`"(createdAt|lastUpdatedAt)":"[^"]*"`)

// taskTimesOut returns a recording with every task time replaced by
// "…": what two recordings of a task group compare, byte for byte.
func taskTimesOut(data []byte) []byte {
	return taskTimes.ReplaceAll(data, []byte(`"$1":"…"`))
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Table writes the report: per operation and way (rows) and transport
// and revision (columns), the cells passed of those run, over servers
// and modes; then the checks of whole recordings, the cells that failed,
// and those that cannot exist.
func (r *Report) Table(modes []string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rows, passed, run := r.rows(modes)
	var b strings.Builder
	fmt.Fprintf(&b, "operation matrix: cells passed of cells run, over the servers (%s) and modes (%s)\n", joinServers(), strings.Join(modes, ", "))
	writeAligned(&b, rows)
	fmt.Fprintf(&b, "total: %d of %d cells passed\n", passed, run)
	r.writeFailures(&b, modes)
	b.WriteString(notExisting())
	return b.String()
}

// A column of the table: one transport and revision.
type column struct {
	kind Kind
	rev  string
}

// count returns how many cells of op, api and c passed (p) of those run
// (n) in modes. The caller holds r.mu.
func (r *Report) count(modes []string, op, api string, c column) (p, n int) {
	for cell, fail := range r.cells {
		if cell.Op == op && cell.API == api && cell.Kind == c.kind && cell.Rev == c.rev && slices.Contains(modes, cell.Mode) {
			n++
			if fail == "" {
				p++
			}
		}
	}
	return p, n
}

// columns returns each transport and revision that ran a cell in modes.
// The caller holds r.mu.
func (r *Report) columns(modes []string) []column {
	var cols []column
	for _, k := range Kinds {
		for _, rev := range Revisions {
			c, ran := column{k, rev}, false
			for _, op := range Ops {
				for _, api := range APIs {
					if _, n := r.count(modes, op, api, c); n > 0 {
						ran = true
					}
				}
			}
			if ran {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// rows returns the table's cells, a header row first, and the cells
// passed of those run over them all. The caller holds r.mu.
func (r *Report) rows(modes []string) (rows [][]string, passed, run int) {
	cols := r.columns(modes)
	rows = [][]string{{"operation / way"}}
	for _, c := range cols {
		rows[0] = append(rows[0], shortKind(c.kind)+" "+c.rev)
	}
	for _, op := range Ops {
		for _, api := range APIs {
			row := []string{op + " / " + strings.TrimSuffix(api, "()")}
			for _, c := range cols {
				p, n := r.count(modes, op, api, c)
				passed, run = passed+p, run+n
				if n == 0 {
					row = append(row, "n/a") // listed below, with why
				} else {
					row = append(row, fmt.Sprintf("%d/%d", p, n))
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, passed, run
}

// writeAligned writes rows to b, each column padded to its widest cell.
func writeAligned(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, s := range row {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, s := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			fmt.Fprintf(&line, "%-*s", width[i], s)
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// writeFailures writes to b how many checks of whole recordings passed,
// then each check and each cell in modes that failed, sorted. The caller
// holds r.mu.
func (r *Report) writeFailures(b *strings.Builder, modes []string) {
	var checks, fails []string
	cp := 0
	for name, fail := range r.checks {
		if fail == "" {
			cp++
		} else {
			checks = append(checks, name+": "+firstLine(fail))
		}
	}
	fmt.Fprintf(b, "recordings: %d of %d checks passed (the same bytes twice, Verify, a clean replay)\n", cp, len(r.checks))
	for cell, fail := range r.cells {
		if fail != "" && slices.Contains(modes, cell.Mode) {
			fails = append(fails, fmt.Sprintf("%s/%s/%s %s %s via %s: %s", cell.Server, cell.Kind, cell.Rev, cell.Mode, cell.Op, cell.API, fail))
		}
	}
	sort.Strings(checks)
	sort.Strings(fails)
	for _, s := range append(checks, fails...) {
		fmt.Fprintf(b, "  FAILED %s\n", s)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func joinServers() string {
	s := make([]string, len(Servers))
	for i, v := range Servers {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

func shortKind(k Kind) string {
	switch k {
	case InProcess:
		return "inproc"
	case Stateless:
		return "stateless"
	}
	return string(k)
}

// notExisting lists the cells that cannot exist, and why.
func notExisting() string {
	var b strings.Builder
	b.WriteString("cells that cannot exist:\n")
	for _, op := range Ops {
		if noClientMethod[op] {
			fmt.Fprintf(&b, "  %s via client.Client: client.Client has no method for it; made through Client.Session()\n", op)
		}
		if why, ok := noSessionWay[op]; ok {
			fmt.Fprintf(&b, "  %s via Client.Session(): %s\n", op, why)
		}
	}
	for _, s := range Servers {
		for _, op := range Ops {
			if ok, why := Offers(s, op); !ok {
				fmt.Fprintf(&b, "  %s on %s: %s\n", op, s, why)
			}
		}
	}
	for _, op := range Ops {
		if ok, why := (Group{Server: Ours, Kind: Stateless, Rev: protocol.Revision20251125}).Makes(op); !ok && unreachable[op] {
			fmt.Fprintf(&b, "  %s over http stateless at 2025-11-25: %s\n", op, why)
		}
		if ok, why := (Group{Server: Ours, Kind: InProcess, Rev: protocol.Revision20251125, Tasks: true}).Makes(op); !ok && taskOps[op] {
			fmt.Fprintf(&b, "  %s at 2025-11-25: %s\n", op, why)
		}
	}
	seen := map[string]bool{}
	for _, s := range Servers {
		for _, k := range Kinds {
			for _, rev := range Revisions {
				if ok, why := Exists(s, k, rev); !ok {
					line := fmt.Sprintf("  %s at %s: %s", k, rev, why)
					if s == SDK && why == "the go-sdk serves 2026-07-28 only statelessly" {
						line = fmt.Sprintf("  %s over %s at %s: %s", s, k, rev, why)
					}
					if !seen[line] {
						seen[line] = true
						b.WriteString(line + "\n")
					}
				}
			}
		}
	}
	return b.String()
}

// Failures returns the cells and checks that failed, one a line.
func (r *Report) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for name, fail := range r.checks {
		if fail != "" {
			out = append(out, name+": "+fail)
		}
	}
	for c, fail := range r.cells {
		if fail != "" {
			out = append(out, fmt.Sprintf("%s/%s/%s %s %s via %s: %s", c.Server, c.Kind, c.Rev, c.Mode, c.Op, c.API, fail))
		}
	}
	sort.Strings(out)
	return out
}
