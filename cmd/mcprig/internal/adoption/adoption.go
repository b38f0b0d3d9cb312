package adoption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is the command that runs the fake server over stdio: for
// `mcprig demo`, the mcprig binary with the argument "fakeserver"; in a test,
// the test binary itself (see fakeserver.MainIfChild).
type Server struct {
	Path string
	Args []string
	Env  map[string]string
	// Profile is the protocol profile the client connects with; the zero
	// value is client.ProfileDefault.
	Profile client.Profile
}

// A Call is what the scripted model asks for in one turn.
type Call struct {
	ModelName string
	Args      map[string]any
}

// Model is a deterministic stand-in for an LLM: it answers each observation
// with the next call of its script, then stops.
type Model struct {
	Script []Call
	turn   int
}

// Next returns the model's next call, or false when it is done.
func (m *Model) Next(observation string) (Call, bool) {
	if m.turn == len(m.Script) {
		return Call{}, false
	}
	m.turn++
	return m.Script[m.turn-1], true
}

// Run performs the adoption proof against srv, writing a transcript to w.
// It returns an error naming the first expectation that did not hold.
func Run(ctx context.Context, w io.Writer, srv Server) (err error) {
	dir, err := os.MkdirTemp("", "mcprig-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	counts := filepath.Join(dir, "counts.json")

	f, err := stdio.New(srv.Path, append(srv.Args, "--catalog", "docs", "--count-file", counts), &stdio.Options{Env: srv.Env})
	if err != nil {
		return err
	}
	c, err := client.Connect(ctx, client.Definition{Name: "docs", Profile: srv.Profile, Transport: f}, nil)
	if err != nil {
		return err
	}
	pid := c.Conn().(*stdio.Conn).Pid()
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()

	if err := discover(w, c); err != nil {
		return err
	}
	observation := play(ctx, w, c)
	if err := checkRefusedOnce(w, c, observation, counts); err != nil {
		return err
	}

	if err := c.Close(); err != nil {
		return err
	}
	if stdio.GroupAlive(pid) {
		return fmt.Errorf("process group %d still has processes after Close", pid)
	}
	fmt.Fprintln(w, "closed: child reaped, process group empty")
	return nil
}

// discover writes what c discovered and checks it is the one enabled
// binding mcp__docs__lookup.
func discover(w io.Writer, c *client.Client) error {
	cat := c.Catalog()
	fmt.Fprintf(w, "connected to %s over stdio (protocol %s), catalog %s\n", "docs", c.ProtocolVersion(), cat.Fingerprint[:19]+"…")
	bindings := c.Bindings()
	if len(bindings) != 1 {
		return fmt.Errorf("discovered %d tools, want 1", len(bindings))
	}
	b := bindings[0]
	fmt.Fprintf(w, "discovered tool %q as %s\n", b.Tool, b.ModelName)
	if b.ModelName != "mcp__docs__lookup" || !b.Enabled {
		return fmt.Errorf("binding = %+v, want mcp__docs__lookup enabled", b)
	}
	return nil
}

// play runs the scripted model's two turns through c, the harness turning
// the tool off before the second, and returns the last observation.
func play(ctx context.Context, w io.Writer, c *client.Client) string {
	model := &Model{Script: []Call{
		{ModelName: "mcp__docs__lookup", Args: map[string]any{"query": "process groups"}},
		{ModelName: "mcp__docs__lookup", Args: map[string]any{"query": "after disable"}},
	}}
	harness := func(turn int, call Call) string {
		if turn == 2 { // the harness operator turns the tool off between turns
			c.SetEnabled(call.ModelName, false)
			b, _ := c.Binding(call.ModelName)
			fmt.Fprintf(w, "harness: disabled %s (enabled=%v)\n", b.ModelName, b.Enabled)
		}
		args, _ := json.Marshal(call.Args)
		fmt.Fprintf(w, "model -> %s %s\n", call.ModelName, args)
		res, err := c.CallModel(ctx, call.ModelName, call.Args)
		if err != nil {
			return "refused: " + err.Error()
		}
		return "result: " + text(res)
	}
	observation := ""
	for turn := 1; ; turn++ {
		call, ok := model.Next(observation)
		if !ok {
			break
		}
		observation = harness(turn, call)
		fmt.Fprintf(w, "model <- %s\n", observation)
	}
	return observation
}

// checkRefusedOnce checks that the disabled binding refused the last call
// (observation) and that the server, by its count file, ran lookup once.
func checkRefusedOnce(w io.Writer, c *client.Client, observation, counts string) error {
	b, _ := c.Binding("mcp__docs__lookup")
	if b.Enabled {
		return errors.New("binding still enabled after SetEnabled(false)")
	}
	if !strings.Contains(observation, "binding disabled") {
		return fmt.Errorf("disabled call was not refused: %s", observation)
	}
	got, err := fakeserver.ReadCounts(counts)
	if err != nil {
		return err
	}
	if n := got.Executions["lookup"]; n != 1 {
		return fmt.Errorf("the server ran lookup %d times, want exactly 1", n)
	}
	fmt.Fprintf(w, "server executed lookup %d time(s)\n", got.Executions["lookup"])
	return nil
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
