package opmatrix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The operations, the matrix's rows: every public operation of MCP a
// client makes.
const (
	OpPing          = "ping"
	OpToolsList     = "tools/list"
	OpCall          = "tools/call"
	OpProgress      = "tools/call with progress"
	OpCancel        = "tools/call cancelled"
	OpResourcesList = "resources/list"
	OpRead          = "resources/read"
	OpReadMissing   = "resources/read, an error" // of a resource no server has: its error's class
	OpTemplates     = "resources/templates/list"
	OpSubscribe     = "resources/subscribe, unsubscribe" // subscriptions/listen on 2026-07-28
	OpPromptsList   = "prompts/list"
	OpGetPrompt     = "prompts/get"
	OpComplete      = "completion/complete"
	OpLogging       = "logging" // logging/setLevel; the per-request level of 2026-07-28
	OpSampling      = "sampling"
	OpElicitation   = "elicitation"
	OpRoots         = "roots"
	OpListChanged   = "list changes"                    // tools/list_changed, re-discovered
	OpTask          = "tools/call as a task"            // the tasks extension of 2026-07-28: handle, tasks/get, the result
	OpTaskCancel    = "tools/call as a task, cancelled" // the caller's context ends while the task runs: tasks/cancel
	OpSkillsList    = "skills/list"                     // the skills extension (SEP-2640), 2026-07-28
	OpSkillLoad     = "skills: SKILL.md loaded"         // resources/read, verified against the entry
	OpSkillFile     = "skills: a file read"             // resources/read, verified against the entry
)

// Ops are the operations in the order a session makes them. List changes
// come before subscriptions: a go-sdk v1.8.0 server on a connection that
// persists (in-process, stdio) drops a session's list-change
// subscription when any of its listen streams ends, as Unsubscribe's does
// on 2026-07-28 (see client.Client.Unsubscribe).
var Ops = []string{OpPing, OpToolsList, OpCall, OpProgress, OpCancel, OpResourcesList, OpRead, OpReadMissing, OpTemplates, OpListChanged, OpSubscribe,
	OpPromptsList, OpGetPrompt, OpComplete, OpSampling, OpElicitation, OpRoots, OpLogging, OpSkillsList, OpSkillLoad, OpSkillFile,
	OpTask, OpTaskCancel}

// The two ways each operation is made: through client.Client, and through
// the go-sdk session it exposes (Client.Session).
const (
	APIClient  = "client.Client"
	APISession = "Client.Session()"
)

// APIs are the two, in the table's order.
var APIs = []string{APIClient, APISession}

// noClientMethod lists the operations client.Client has no method for:
// they are made through the session it exposes only.
var noClientMethod = map[string]bool{OpPing: true, OpComplete: true}

// noSessionWay says why the go-sdk session (Client.Session) cannot make
// an operation: it is made through client.Client only.
var noSessionWay = map[string]string{
	OpTask:       noSessionTask,
	OpTaskCancel: noSessionTask,
	OpSkillsList: noSessionSkills,
	OpSkillLoad:  noSessionSkills,
	OpSkillFile:  noSessionSkills,
}

const noSessionSkills = "the go-sdk v1.8.0 session has no skills extension: no skills/list, and no verification of a skill file against its entry"

const noSessionTask = "the go-sdk v1.8.0 session has no tasks extension: its tools/call declares only the go-sdk's capabilities " +
	"(client.Client opts in through sending middleware of its own), so a server runs the tool in the request, " +
	"and it would decode a task handle as a CallToolResult, losing the task's id"

// made reports whether op is made through api.
func made(op, api string) bool {
	if api == APIClient {
		return !noClientMethod[op]
	}
	_, no := noSessionWay[op]
	return !no
}

// An Outcome is what one operation gave: its result, made comparable
// (texts, names, counts; no ids or timings), or its error's class.
type Outcome struct {
	Result string
	Class  string // "" when it succeeded
}

func (o Outcome) String() string {
	if o.Class == "" {
		return o.Result
	}
	return "error " + o.Class + ": " + o.Result
}

// A Key names an operation made one way.
type Key struct{ Op, API string }

// noted keeps what the server sent the client's handlers, for the
// operations that wait for it.
type noted struct {
	mu       sync.Mutex // guards the fields below
	progress []string   // "TOKEN MESSAGE"
	logs     []string   // "LEVEL DATA"
	updates  []string   // URIs
	lists    []string   // "tools: TOOL,TOOL,…" per re-discovery
	changed  chan struct{}
	cancel   context.CancelFunc // set by the cancelled call: what the wait tool's first progress cancels
}

func newNoted() *noted { return &noted{changed: make(chan struct{})} }

// add appends to one of the lists and wakes waiters.
func (n *noted) add(list *[]string, s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	*list = append(*list, s)
	close(n.changed)
	n.changed = make(chan struct{})
}

// await waits until ok holds (under n.mu) or ctx ends.
func (n *noted) await(ctx context.Context, ok func() bool) error {
	for {
		n.mu.Lock()
		done, ch := ok(), n.changed
		n.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for a notification: %w", ctx.Err())
		}
	}
}

// endCaller ends the context of the cancelled call under way (the hold
// task asked for input, so its task runs) and returns its error once ctx,
// the handler's, derived from it, has ended.
func (n *noted) endCaller(ctx context.Context) error {
	n.mu.Lock()
	cancel := n.cancel
	n.mu.Unlock()
	if cancel == nil {
		return errors.New("the hold task asked for input outside its cancelled call")
	}
	cancel()
	t := time.NewTimer(opTimeout)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("the handler's context did not end with the caller's")
	}
}

// handlers are the client's: deterministic answers, and notes of every
// notification.
func (n *noted) handlers() *client.Handlers {
	return &client.Handlers{
		Progress: func(_ context.Context, p *mcp.ProgressNotificationParams) {
			n.add(&n.progress, fmt.Sprint(p.ProgressToken)+" "+p.Message)
			if p.Message == "started" {
				n.mu.Lock()
				cancel := n.cancel
				n.mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
		},
		//lint:ignore SA1019 logging, deprecated by SEP-2577 and still supported: mcp.LoggingMessageParams
		Logging: func(_ context.Context, p *mcp.LoggingMessageParams) {
			n.add(&n.logs, string(p.Level)+" "+fmt.Sprint(p.Data))
		},
		ResourceUpdated: func(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) { n.add(&n.updates, p.URI) },
		ListChanged: func(what string, cat *client.Catalog) {
			var names []string
			for _, t := range cat.Tools {
				names = append(names, t.Name)
			}
			n.add(&n.lists, what+": "+strings.Join(names, ","))
		},
		//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageParams, mcp.CreateMessageResult
		Sampling: func(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 sampling, deprecated by SEP-2577 and still supported: mcp.CreateMessageResult
			return &mcp.CreateMessageResult{Model: "opmatrix-model", Role: "assistant", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
		Elicitation: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if p.Message == holdQuestion {
				return nil, n.endCaller(ctx)
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes"}}, nil
		},
		//lint:ignore SA1019 roots, deprecated by SEP-2577 and still supported: mcp.Root
		Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}},
	}
}

// debug, set by OPMATRIX_DEBUG=1, writes every operation's outcome and
// time to stderr.
var debug = os.Getenv("OPMATRIX_DEBUG") != ""

// opTimeout bounds one operation: a replay that holds an answer, a
// notification that does not come, fail the operation there.
const opTimeout = 10 * time.Second

// Limits are the client's in every session: a replay that holds an
// answer fails the call well within the test's deadline.
var Limits = client.Limits{ConnectTimeout: 20 * time.Second, CallTimeout: opTimeout, DrainTimeout: 5 * time.Second,
	TaskPollMin: TaskPoll, TaskPollMax: TaskPoll, TaskTimeout: opTimeout}

// Run connects through def, makes every operation g makes, both ways,
// closes, and returns what each gave. A failure to connect or to close is
// the error; an operation that failed is its Outcome.
func Run(ctx context.Context, g Group, def client.Definition) (map[Key]Outcome, error) {
	n := newNoted()
	def.Limits = Limits
	c, err := client.Connect(ctx, def, n.handlers())
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	s := &session{c: c, cs: c.Session(), n: n, rev: c.ProtocolVersion()}
	out := map[Key]Outcome{}
	for _, op := range Ops {
		if ok, _ := g.Makes(op); !ok {
			continue
		}
		for _, api := range APIs {
			if !made(op, api) {
				continue
			}
			octx, cancel := context.WithTimeout(ctx, opTimeout)
			start := time.Now()
			out[Key{op, api}] = s.do(octx, op, api)
			cancel()
			if debug {
				fmt.Fprintf(os.Stderr, "opmatrix: %s %s via %s: %s (%v)\n", g, op, api, out[Key{op, api}], time.Since(start).Round(time.Millisecond))
			}
		}
	}
	if err := c.Close(); err != nil {
		return out, fmt.Errorf("close: %w", err)
	}
	return out, nil
}

type session struct {
	c   *client.Client
	cs  *mcp.ClientSession
	n   *noted
	rev string
}

// do makes op through api.
func (s *session) do(ctx context.Context, op, api string) Outcome {
	cl := api == APIClient
	switch op {
	case OpPing:
		return outcome("ok", s.cs.Ping(ctx, nil))
	case OpToolsList:
		if cl {
			return names(s.c.Catalog().Tools, func(t *mcp.Tool) string { return t.Name })
		}
		return listAll(ctx, s.cs.Tools, func(t *mcp.Tool) string { return t.Name })
	case OpCall:
		return s.call(ctx, cl, "echo", map[string]any{"text": "hello"}, "")
	case OpProgress:
		return s.progress(ctx, cl)
	case OpCancel:
		return s.cancelled(ctx, cl)
	case OpResourcesList:
		if cl {
			return names(s.c.Catalog().Resources, func(r *mcp.Resource) string { return r.URI })
		}
		return listAll(ctx, s.cs.Resources, func(r *mcp.Resource) string { return r.URI })
	case OpRead:
		return s.read(ctx, cl, readme)
	case OpReadMissing:
		return s.read(ctx, cl, missing)
	case OpTemplates:
		if cl {
			return names(s.c.Catalog().ResourceTemplates, func(r *mcp.ResourceTemplate) string { return r.URITemplate })
		}
		return listAll(ctx, s.cs.ResourceTemplates, func(r *mcp.ResourceTemplate) string { return r.URITemplate })
	case OpSubscribe:
		return s.subscribe(ctx, cl)
	case OpPromptsList:
		if cl {
			return names(s.c.Catalog().Prompts, func(p *mcp.Prompt) string { return p.Name })
		}
		return listAll(ctx, s.cs.Prompts, func(p *mcp.Prompt) string { return p.Name })
	case OpGetPrompt:
		return s.prompt(ctx, cl)
	case OpComplete:
		res, err := s.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}, Argument: mcp.CompleteParamsArgument{Name: "topic", Value: "c"}})
		if err != nil {
			return outcome("", err)
		}
		return Outcome{Result: strings.Join(res.Completion.Values, ",")}
	case OpSampling:
		return s.call(ctx, cl, "sample", map[string]any{"question": "why?"}, "")
	case OpElicitation:
		return s.call(ctx, cl, "elicit", map[string]any{"question": "sure?"}, "")
	case OpRoots:
		return s.call(ctx, cl, "roots", map[string]any{}, "")
	case OpListChanged:
		return s.listChanged(ctx, cl)
	case OpLogging:
		return s.logging(ctx, cl)
	case OpTask:
		return s.call(ctx, cl, "job", map[string]any{"text": "hello"}, "")
	case OpTaskCancel:
		return s.taskCancelled(ctx)
	case OpSkillsList:
		return names(s.c.Catalog().Skills, func(sk *client.Skill) string { return sk.URI })
	case OpSkillLoad:
		sk, err := s.c.LoadSkill(ctx, skillURI)
		if err != nil {
			return outcome("", err)
		}
		return Outcome{Result: string(sk.Manifest)}
	case OpSkillFile:
		b, err := s.c.ReadSkillFile(ctx, skillURI, skillFile)
		return outcome(string(b), err)
	}
	return Outcome{Class: "unknown operation"}
}
