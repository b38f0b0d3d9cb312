package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment variables the conformance suite sets for each scenario.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// maxReauthorizations bounds how often one run connects again, or issues a
// refused call again, after the server refused a request and the credential
// was renewed (streamablehttp.ErrReauthorized). Each renewal is one
// authorization request; the specification asks clients to bound them, and
// the suite's auth/scope-retry-limit scenario accepts at most 3.
const maxReauthorizations = 2

// errUsage is returned when the program is started without what the suite
// always gives it: one server URL and a known scenario name.
var errUsage = errors.New("usage")

func main() {
	logger := log.New(os.Stderr, "", log.LstdFlags)
	if err := run(context.Background(), os.Args[1:], os.Getenv, logger); err != nil {
		logger.Fatal(err)
	}
}

// run runs the scenario the environment names against the server URL in
// args, the contract of the suite's client runner.
func run(ctx context.Context, args []string, getenv func(string) string, logger *log.Logger) error {
	if len(args) != 1 {
		return usage("want exactly one argument, the server URL; got %d", len(args))
	}
	name := getenv(envScenario)
	if name == "" {
		return usage("%s is not set", envScenario)
	}
	sc, ok := scenarios[name]
	if !ok {
		return usage("unknown scenario %q", name)
	}
	var cc map[string]any
	if raw := getenv(envContext); raw != "" {
		if err := json.Unmarshal([]byte(raw), &cc); err != nil {
			return fmt.Errorf("%s: %w", envContext, err)
		}
	}
	r := &runner{
		url:     args[0],
		profile: sc.profile,
		context: cc,
		reauth:  maxReauthorizations,
		log:     logger,
	}
	if err := sc.run(ctx, r); err != nil {
		return fmt.Errorf("scenario %q: %w", name, err)
	}
	return nil
}

func usage(format string, args ...any) error {
	return fmt.Errorf("%w: %s <server-url> with %s=<scenario> [%s=<json>]: %s\nscenarios:\n  %s",
		errUsage, os.Args[0], envScenario, envContext, fmt.Sprintf(format, args...),
		strings.Join(scenarioNames(), "\n  "))
}

func scenarioNames() []string {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// A scenario is what the client does for one of the suite's scenarios, at
// the protocol revision its profile pins.
type scenario struct {
	profile client.Profile
	run     func(context.Context, *runner) error
}

// runner holds one run's settings and its budget of re-authorizations.
type runner struct {
	url     string
	profile client.Profile
	context map[string]any // MCP_CONFORMANCE_CONTEXT, or nil
	creds   auth.Source    // nil but in auth scenarios
	reauth  int            // re-authorizations left
	skills  bool           // declare and list skills (client.Definition.Skills)
	log     *log.Logger
}

// connect connects to the server with the run's profile and credentials.
// A server that refuses a request of the handshake or of discovery with 401
// or 403 after which the credential was renewed is connected to again:
// Connect runs no tool, so connecting again executes nothing twice.
func (r *runner) connect(ctx context.Context, h *client.Handlers) (*client.Client, error) {
	f, err := streamablehttp.New(r.url, &streamablehttp.Options{Credentials: r.creds})
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	def := client.Definition{Name: "conformance", Profile: r.profile, Transport: f, Skills: r.skills}
	for {
		c, err := client.Connect(ctx, def, h)
		if err == nil {
			return c, nil
		}
		if !r.reauthorized(err) {
			return nil, err
		}
	}
}

// call calls a tool. A call the server refused with 401 or 403, after which
// the credential was renewed, did not run, and is issued again. A call whose
// tool reported failure (IsError) is not a failure of the scenario: the
// suite judges the result.
func (r *runner) call(ctx context.Context, c *client.Client, name string, args any) (*mcp.CallToolResult, error) {
	for {
		res, err := c.CallTool(ctx, name, args)
		var te *client.ToolError
		switch {
		case err == nil:
			return res, nil
		case errors.As(err, &te):
			r.log.Printf("tool %q reported an error: %v", name, te)
			return res, nil
		case !r.reauthorized(err):
			return nil, err
		}
	}
}

// reauthorized reports whether err says the credential was renewed after a
// refusal and the run may try again, spending one re-authorization.
func (r *runner) reauthorized(err error) bool {
	if !errors.Is(err, streamablehttp.ErrReauthorized) {
		return false
	}
	if r.reauth == 0 {
		r.log.Printf("giving up after %d re-authorizations: %v", maxReauthorizations, err)
		return false
	}
	r.reauth--
	r.log.Printf("credential renewed; trying again: %v", err)
	return true
}
