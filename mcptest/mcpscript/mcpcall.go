package mcpscript

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/internal/safetext"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mcpcallUsage = `usage: mcpcall [flags] TOOL [JSON] -- PROG [ARGS...]

Starts PROG as a supervised stdio child (transport/stdio) from this process's
environment, calls TOOL once with the JSON arguments, prints the text of the
result and closes the connection. It exits 0 on success, 1 when the call or
the connection fails (the error, with its failure class, on stderr), 2 on bad
usage.

Flags:
`

// mcpcall is the mcpcall program: see mcpcallUsage.
func mcpcall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpcall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		io.WriteString(stderr, mcpcallUsage)
		fs.PrintDefaults()
	}
	var sf stdioFlags
	sf.register(fs)
	timeout := fs.Duration("timeout", 30*time.Second, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	i := slices.Index(rest, "--")
	if i < 1 || i > 2 || i == len(rest)-1 {
		fs.Usage()
		return 2
	}
	tool, argJSON, prog := rest[0], "{}", rest[i+1:]
	if i == 2 {
		argJSON = rest[1]
	}
	var callArgs map[string]any
	if err := json.Unmarshal([]byte(argJSON), &callArgs); err != nil {
		fmt.Fprintf(stderr, "mcpcall: arguments: %v\n", err)
		return 2
	}
	dir, _ := os.Getwd()
	f, err := stdio.New(prog[0], prog[1:], sf.options(dir))
	if err != nil {
		fmt.Fprintf(stderr, "mcpcall: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c, err := client.Connect(ctx, client.Definition{Name: "mcpcall", Transport: f}, nil)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	res, err := c.CallTool(ctx, tool, callArgs)
	printResult(stdout, res)
	if cerr := c.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		printError(stderr, err)
		return 1
	}
	return 0
}

// printResult writes the text of each text content of res, one per line.
// The server is untrusted: its control characters are shown as escapes
// (safetext.Text), since go test -v copies a script's output to a terminal.
func printResult(w io.Writer, res *mcp.CallToolResult) {
	if res == nil {
		return
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text := safetext.Text(tc.Text)
			io.WriteString(w, text)
			if len(text) == 0 || text[len(text)-1] != '\n' {
				io.WriteString(w, "\n")
			}
		}
	}
}

// printError writes err's failure class on a line of its own, then err,
// its control characters shown as escapes: it may quote the server.
func printError(w io.Writer, err error) {
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Fprintf(w, "class: %s\n", e.Class)
	}
	fmt.Fprintf(w, "error: %s\n", safetext.Text(err.Error()))
}
