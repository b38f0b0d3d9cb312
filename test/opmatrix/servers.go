package opmatrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/protocol"
	"github.com/looprig/mcp/server"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/inprocess"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Server names one of the three servers the matrix runs every operation
// against: this module's server package, the fake server, and a go-sdk
// mcp.Server written as a go-sdk user would. Each serves the same
// catalog, as far as it can (see Offers).
type Server string

const (
	Ours Server = "server"     // a *server.Server
	Fake Server = "fakeserver" // a fakeserver.Catalog
	SDK  Server = "go-sdk"     // a plain *mcp.Server
)

// Servers are the three, in the table's order.
var Servers = []Server{Ours, Fake, SDK}

// The catalog every server publishes (the fake: all but what a
// fakeserver.Catalog cannot hold).
const (
	readme   = "docs://readme"
	missing  = "docs://missing" // a resource no server has
	template = "docs://topics/{topic}"
	prompt   = "summarize"
	extra    = "extra" // the tool a toggle adds and removes
)

// notOffered says why a server cannot serve an operation: a cell that
// cannot exist, listed as such.
var notOffered = map[Server]map[string]string{
	SDK: {
		OpTask:       noSDKTasks,
		OpTaskCancel: noSDKTasks,
		OpSkillsList: noSDKSkills,
		OpSkillLoad:  noSDKSkills,
		OpSkillFile:  noSDKSkills,
	},
	Fake: {
		OpSubscribe:   "a fakeserver.Catalog has no resource subscriptions",
		OpComplete:    "a fakeserver.Catalog has no completions",
		OpListChanged: "a fakeserver.Catalog's tools do not change",
	},
}

const noSDKTasks = "a go-sdk v1.8.0 mcp.Server has no tasks extension"

const noSDKSkills = "a go-sdk v1.8.0 mcp.Server has no skills extension"

// skillOps are the operations of the skills extension, made at 2026-07-28.
var skillOps = map[string]bool{OpSkillsList: true, OpSkillLoad: true, OpSkillFile: true}

// The skill the servers publish, and the file of it the matrix reads.
const (
	skillURI  = "skill://opmatrix-notes/SKILL.md"
	skillFile = "skill://opmatrix-notes/references/STYLE.md"
)

var skillFiles = map[string]string{
	"SKILL.md":            "---\nname: opmatrix-notes\ndescription: Notes the operation matrix reads\n---\n\nRead references/STYLE.md.\n",
	"references/STYLE.md": "Short sentences.\n",
}

func skillDefinitions() []server.SkillDefinition {
	files := map[string][]byte{}
	for p, body := range skillFiles {
		files[p] = []byte(body)
	}
	return []server.SkillDefinition{{Path: "opmatrix-notes", Files: files}}
}

// taskOps are the operations of the tasks extension, which is 2026-07-28's.
var taskOps = map[string]bool{OpTask: true, OpTaskCancel: true}

// Offers reports whether srv serves op, and why not.
func Offers(srv Server, op string) (bool, string) {
	why, ok := notOffered[srv][op]
	return !ok, why
}

// unreachable are the operations a server serving 2025-11-25 statelessly
// cannot serve: it keeps no session and no stream of its own, so it can
// reach the client only in a call's answer.
var unreachable = map[string]bool{OpSampling: true, OpElicitation: true, OpRoots: true, OpListChanged: true, OpSubscribe: true}

// Makes reports whether g serves op, and why not: the server offers it,
// and the transport and revision let the server reach the client.
func (g Group) Makes(op string) (bool, string) {
	if ok, why := Offers(g.Server, op); !ok {
		return false, why
	}
	if skillOps[op] && (g.Rev != protocol.Revision20260728 || g.Tasks) {
		return false, "the skills extension's operations are made at 2026-07-28, by the group without tasks"
	}
	if taskOps[op] && g.Rev != protocol.Revision20260728 {
		return false, "the tasks extension is 2026-07-28's: a session at an earlier revision has no tasks"
	}
	if taskOps[op] != g.Tasks {
		return false, "made by the other group of its server, transport and revision (a task group makes the task operations only)"
	}
	if g.Kind == Stateless && g.Rev == protocol.Revision20251125 && unreachable[op] {
		return false, "a server serving 2025-11-25 statelessly keeps no session: it cannot ask the client, or tell it of a change, outside a call's answer"
	}
	return true, ""
}

// arguments of the tools.
type (
	echoIn struct {
		Text string `json:"text"`
	}
	stepsIn struct {
		Steps int `json:"steps"`
	}
	countIn struct {
		Count int `json:"count"`
	}
	questionIn struct {
		Question string `json:"question"`
	}
)

//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingLevel
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error"}

// A handler is one tool's body, written once for every server: it gets
// the call's session, params and input responses, and returns its result.
type handler func(ctx context.Context, ss *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error)

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func decode[T any](p *mcp.CallToolParamsRaw) T {
	var v T
	if len(p.Arguments) > 0 {
		json.Unmarshal(p.Arguments, &v)
	}
	return v
}

// tools are the tools every server publishes, by name, with their input
// schemas: what each operation of the script calls.
var tools = []struct {
	name, schema string
	h            handler
}{
	{"echo", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, func(_ context.Context, _ *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
		return textResult("echo: " + decode[echoIn](p).Text), nil
	}},
	{"progress", `{"type":"object","properties":{"steps":{"type":"integer"}}}`, progressTool},
	{"wait", `{"type":"object"}`, waitTool},
	{"log", `{"type":"object","properties":{"count":{"type":"integer"}}}`, logTool},
	{"sample", `{"type":"object","properties":{"question":{"type":"string"}}}`, askTool(func(p *mcp.CallToolParamsRaw) mcp.InputRequest {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.SamplingMessage
		return &mcp.CreateMessageParams{MaxTokens: 16, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: decode[questionIn](p).Question}}}}
	})},
	{"elicit", `{"type":"object","properties":{"question":{"type":"string"}}}`, askTool(func(p *mcp.CallToolParamsRaw) mcp.InputRequest {
		return &mcp.ElicitParams{Message: decode[questionIn](p).Question, RequestedSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)}
	})},
	//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsParams
	{"roots", `{"type":"object"}`, askTool(func(*mcp.CallToolParamsRaw) mcp.InputRequest { return &mcp.ListRootsParams{} })},
}

// taskTools run as tasks (the tasks extension) on the servers that have
// it, and only as tasks, so that a call that is not one fails (-32021):
// this module's, registered with RegisterTaskTool (Required), and the
// fake's, made tasks by a FaultTaskRequired each.
var taskTools = []struct {
	name, schema string
	h            handler
}{
	{"job", `{"type":"object","properties":{"text":{"type":"string"}}}`, func(_ context.Context, _ *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
		return textResult("job: " + decode[echoIn](p).Text), nil
	}},
	{"hold", `{"type":"object"}`, holdTool},
}

// holdQuestion is what the hold task asks; Handlers.Elicitation answers
// it by ending the caller's context.
const holdQuestion = "hold on?"

// holdTool asks the client for input at once (the task is then
// input_required, which the client's first poll reads) and waits until
// the task is cancelled or the server stops; an answer it gets is not
// what the script sends.
func holdTool(ctx context.Context, _ *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	if len(p.InputResponses) == 0 {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"input": &mcp.ElicitParams{Message: holdQuestion,
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)}}}, nil
	}
	return textResult("answered, not cancelled"), nil
}

func progressTool(ctx context.Context, ss *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	n := max(decode[stepsIn](p).Steps, 1)
	token := p.GetProgressToken()
	for i := range n {
		if token == nil {
			break
		}
		if err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i + 1), Total: float64(n), Message: fmt.Sprintf("step %d of %d", i+1, n)}); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("progress: %d steps, token %v", n, token != nil)), nil
}

// waitTool says it started (a progress notification) and waits until the
// call is cancelled, or waitBound passes: a go-sdk stateless handler is
// not told a call its client gave up (the client's POST ends, the
// handler's context does not), and its HTTP server would wait for it.
func waitTool(ctx context.Context, ss *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	if token := p.GetProgressToken(); token != nil {
		if err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 0, Message: "started"}); err != nil {
			return nil, err
		}
	}
	t := time.NewTimer(waitBound)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-quitOf(ctx):
		return nil, errors.New("the server stopped")
	case <-t.C:
		return textResult("not cancelled"), nil
	}
}

// quitKey carries a server's quit channel in its handlers' context.
type quitKey struct{}

// quitOf returns the quit channel of the server ctx's handler runs in, or
// nil (which never closes).
func quitOf(ctx context.Context) <-chan struct{} {
	q, _ := ctx.Value(quitKey{}).(chan struct{})
	return q
}

// waitBound bounds waitTool.
const waitBound = 5 * time.Second

func logTool(ctx context.Context, ss *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	n := max(decode[countIn](p).Count, 1)
	for i := range n {
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerSession.Log, mcp.LoggingMessageParams
		if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: logLevels[i%len(logLevels)], Logger: "opmatrix", Data: fmt.Sprintf("message %d of %d", i+1, n)}); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("logged %d messages", n)), nil
}

// askTool asks the client for input with the request ask makes (round 1)
// and answers with the client's answer (round 2): input-required results,
// which each server turns into server requests for a 2025-11-25 client.
func askTool(ask func(*mcp.CallToolParamsRaw) mcp.InputRequest) handler {
	return func(_ context.Context, _ *mcp.ServerSession, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
		if len(p.InputResponses) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"input": ask(p)}, RequestState: "asked"}, nil
		}
		answer := "no answer"
		switch r := p.InputResponses["input"].(type) {
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
		case *mcp.CreateMessageResult:
			answer = "sampled " + r.Model
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageWithToolsResult
		case *mcp.CreateMessageWithToolsResult:
			answer = "sampled " + r.Model
		case *mcp.ElicitResult:
			content, _ := json.Marshal(r.Content)
			answer = "elicited " + r.Action + " " + string(content)
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.ListRootsResult
		case *mcp.ListRootsResult:
			uris := make([]string, len(r.Roots))
			for i, root := range r.Roots {
				uris[i] = root.URI
			}
			slices.Sort(uris)
			answer = "roots " + strings.Join(uris, ",")
		}
		return textResult(answer + ", state " + p.RequestState), nil
	}
}

func readmeContents(uri string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: "# docs\n\nThe front page.\n"}}}
}

func summarize(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Description: "Summarize " + req.Params.Arguments["topic"],
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize " + req.Params.Arguments["topic"] + "."}}}}, nil
}

func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	for _, v := range []string{"close", "connect", "cursor"} {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

var (
	readmeResource   = &mcp.Resource{URI: readme, Name: "readme", MIMEType: "text/markdown", Description: "The front page."}
	topicTemplate    = &mcp.ResourceTemplate{URITemplate: template, Name: "topic", MIMEType: "text/markdown"}
	summarizePrompt  = &mcp.Prompt{Name: prompt, Description: "Summarize a topic.", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}}
	stateKey         = []byte(strings.Repeat("opmatrix", 4))
	errUnknownServer = fmt.Errorf("opmatrix: unknown server")
)

// A served is one running server, of any of the three kinds: what the
// transports reach it through.
type served struct {
	mcp  *mcp.Server        // ours, sdk: the go-sdk server underneath
	own  *server.Server     // ours
	fake *fakeserver.Server // fake
	stop func()             // ends it; idempotent
	mu   sync.Mutex         // guards more
	more bool               // the tool extra is published
	n    atomic.Int64       // sdk: session ids handed out
	quit chan struct{}      // closed by stop: its handlers still waiting return

}

// newServed starts srv, offering the tasks extension and its task tools
// if tasks is set.
func newServed(srv Server, tasks bool) (*served, error) {
	s := &served{quit: make(chan struct{})}
	var once sync.Once
	quit := func() { once.Do(func() { close(s.quit) }) }
	switch srv {
	case Ours:
		o := &server.Options{Completion: complete, Subscriptions: true, StateKey: stateKey,
			Skills: &server.SkillOptions{Skills: skillDefinitions()}}
		if tasks {
			o.Tasks = &server.TaskOptions{PollInterval: TaskPoll}
		}
		own, err := server.New("opmatrix", "v1", o)
		if err != nil {
			return nil, err
		}
		s.own = own
		s.mcp = s.own.MCP()
		if err := s.installOurs(tasks); err != nil {
			return nil, err
		}
		s.stop = sync.OnceFunc(func() { quit(); own.Close() })
	case SDK:
		s.mcp = mcp.NewServer(&mcp.Implementation{Name: "opmatrix", Version: "v1"}, &mcp.ServerOptions{
			CompletionHandler:  complete,
			SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.ServerCapabilities.Logging, mcp.LoggingCapabilities
			Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: true}},
			GetSessionID: func() string { return fmt.Sprintf("sdk-%d", s.n.Add(1)) },
		})
		s.installSDK()
		s.stop = quit
	case Fake:
		var faults []fakeserver.Fault
		if tasks {
			faults = fakeTaskFaults
		}
		f, err := fakeserver.New(&fakeserver.Options{Custom: fakeCatalog(s.quit), Faults: faults})
		if err != nil {
			return nil, err
		}
		s.fake, s.stop = f, sync.OnceFunc(func() { quit(); f.Close() })
	default:
		return nil, fmt.Errorf("%w %q", errUnknownServer, srv)
	}
	return s, nil
}

func (s *served) installOurs(tasks bool) error {
	for _, t := range tools {
		h := t.h
		if err := s.own.RegisterTool(&mcp.Tool{Name: t.name, InputSchema: json.RawMessage(t.schema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return h(context.WithValue(ctx, quitKey{}, s.quit), req.Session, req.Params)
		}); err != nil {
			return err
		}
	}
	for _, t := range taskTools {
		if !tasks {
			break
		}
		h := t.h
		if err := s.own.RegisterTaskTool(&mcp.Tool{Name: t.name, InputSchema: json.RawMessage(t.schema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return h(context.WithValue(ctx, quitKey{}, s.quit), req.Session, req.Params)
		}, &server.TaskToolOptions{Required: true}); err != nil {
			return err
		}
	}
	for name, h := range map[string]func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error){
		"touch":  s.touch,
		"toggle": s.toggleTool,
	} {
		if err := s.own.RegisterTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h); err != nil {
			return err
		}
	}
	if err := s.own.RegisterResource(readmeResource, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return readmeContents(req.Params.URI), nil
	}); err != nil {
		return err
	}
	s.mcp.AddResourceTemplate(topicTemplate, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return readmeContents(req.Params.URI), nil
	})
	return s.own.RegisterPrompt(summarizePrompt, summarize)
}

func (s *served) installSDK() {
	for _, t := range tools {
		h := t.h
		s.mcp.AddTool(&mcp.Tool{Name: t.name, InputSchema: json.RawMessage(t.schema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return h(context.WithValue(ctx, quitKey{}, s.quit), req.Session, req.Params)
		})
	}
	s.mcp.AddTool(&mcp.Tool{Name: "touch", InputSchema: json.RawMessage(`{"type":"object"}`)}, s.touch)
	s.mcp.AddTool(&mcp.Tool{Name: "toggle", InputSchema: json.RawMessage(`{"type":"object"}`)}, s.toggleTool)
	s.mcp.AddResource(readmeResource, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return readmeContents(req.Params.URI), nil
	})
	s.mcp.AddResourceTemplate(topicTemplate, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return readmeContents(req.Params.URI), nil
	})
	s.mcp.AddPrompt(summarizePrompt, summarize)
}

// touch tells the subscribers of the readme that it changed.
func (s *served) touch(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: readme}); err != nil {
		return nil, err
	}
	return textResult("touched " + readme), nil
}

// toggleTool adds the tool extra, or removes it: the tools list changes.
// A go-sdk server sends tools/list_changed from a timer, notificationDelay
// (10 ms) after the change: the call's answer goes before or after it as
// the machine's load has it (which the cassette's recorder evens out).
func (s *served) toggleTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := s.toggle(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.more {
		return textResult("added " + extra), nil
	}
	return textResult("removed " + extra), nil
}

// toggle adds the tool extra, or removes it.
func (s *served) toggle() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.more = !s.more
	if !s.more {
		if s.own != nil {
			s.own.RemoveTools(extra)
		} else {
			s.mcp.RemoveTools(extra)
		}
		return nil
	}
	t := &mcp.Tool{Name: extra, InputSchema: json.RawMessage(`{"type":"object"}`)}
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(extra), nil
	}
	if s.own != nil {
		return s.own.RegisterTool(t, h)
	}
	s.mcp.AddTool(t, h)
	return nil
}

// FakeCatalog is the fake server's catalog: the tools every server
// publishes, the readme and the prompt. The stdio child serves it,
// registered by name.
var FakeCatalog = fakeCatalog(nil)

// fakeCatalog is FakeCatalog whose handlers still waiting return
// when quit closes.
func fakeCatalog(quit chan struct{}) *fakeserver.Catalog {
	d := &fakeserver.Catalog{Name: "opmatrix",
		Resources: []fakeserver.Resource{{URI: readme, Name: "readme", MIMEType: "text/markdown", Description: "The front page.", Text: "# docs\n\nThe front page.\n"}},
		Prompts:   []fakeserver.Prompt{{Name: prompt, Description: "Summarize a topic.", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}, Text: "Summarize {{topic}}."}},
		Skills:    []fakeserver.Skill{{Path: "opmatrix-notes", Files: skillFiles}},
	}
	for _, t := range slices.Concat(tools, taskTools) {
		h := t.h
		d.Tools = append(d.Tools, fakeserver.Tool{Name: t.name, InputSchema: t.schema, Reply: func(ctx context.Context, c *fakeserver.Call) (*mcp.CallToolResult, error) {
			p := *c.Request.Params
			p.InputResponses, p.RequestState = c.InputResponses, c.RequestState
			if quit != nil {
				ctx = context.WithValue(ctx, quitKey{}, quit)
			}
			return h(ctx, c.Request.Session, &p)
		}})
	}
	return d
}

// fakeTaskFaults make the fake's task tools run as tasks, in process and
// over HTTP; fakeTaskArgs, in a stdio child.
var (
	fakeTaskFaults = []fakeserver.Fault{{Kind: fakeserver.FaultTaskRequired, Tool: "job"}, {Kind: fakeserver.FaultTaskRequired, Tool: "hold"}}
	fakeTaskArgs   = []string{"--fault", "task-required@job", "--fault", "task-required@hold"}
)

// TaskPoll is the poll interval the servers' tasks suggest, and the
// client's bounds on it (Limits): long enough that a task's handler,
// which answers at once, has run when the client first polls.
const TaskPoll = 100 * time.Millisecond

// childEnv names the server a stdio child of the test binary serves;
// TasksEnv, set, has it offer the tasks extension (a task group's).
const (
	childEnv = "OPMATRIX_SERVER"
	TasksEnv = "OPMATRIX_TASKS"
)

// ServeIfChild serves, over stdin and stdout, the server the environment
// names (a stdio child of the matrix: the test binary re-run), and exits;
// it returns at once otherwise. Call it first in TestMain.
func ServeIfChild() {
	name := os.Getenv(childEnv)
	if name == "" {
		return
	}
	tasks := os.Getenv(TasksEnv) != ""
	if Server(name) == Fake {
		fakeserver.Register(FakeCatalog)
		args := []string{"--catalog", FakeCatalog.Name}
		if tasks {
			args = append(args, fakeTaskArgs...)
		}
		os.Exit(fakeserver.Main(args))
	}
	s, err := newServed(Server(name), tasks)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if s.own != nil {
		err = s.own.ServeStdio(context.Background(), os.Stdin, os.Stdout) // task tools run as tasks over ServeStdio, not the go-sdk's Run
	} else {
		err = s.mcp.Run(context.Background(), &mcp.StdioTransport{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// handler serves s over Streamable HTTP (stateful, or stateless) or the
// legacy SSE shape.
func (s *served) handler(kind Kind) (http.Handler, func(), error) {
	stateless := kind == Stateless
	switch {
	case s.fake != nil:
		h, err := s.fake.HTTPHandler(&fakeserver.HTTPOptions{Stateless: stateless, SSE: kind == SSE})
		if err != nil {
			return nil, nil, err
		}
		return h, func() { h.Close() }, nil
	case s.own != nil && kind == SSE:
		h, err := s.own.SSEHandler(nil)
		if err != nil {
			return nil, nil, err
		}
		return h, func() { h.Close() }, nil
	case s.own != nil:
		h, err := s.own.HTTPHandler(&server.HTTPOptions{Stateless: stateless})
		if err != nil {
			return nil, nil, err
		}
		return h, func() { h.Close() }, nil
	case kind == SSE:
		return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil), func() {}, nil
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{Stateless: stateless}), func() {}, nil
}

func inprocessFactory(s *mcp.Server) transport.Factory { return inprocess.New(s) }
