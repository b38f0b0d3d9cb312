package stdio_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Starting a server that is on PATH, with a token it needs and nothing else
// from the parent's environment but the default allowlist. (Not run: it needs
// the server installed.)
func ExampleNew() {
	f, err := stdio.New("docs-server", []string{"--stdio"}, &stdio.Options{
		Env:        map[string]string{"DOCS_TOKEN": "…"},
		CloseGrace: time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	tr, err := f.Transport()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		var se *stdio.StartError
		if errors.As(err, &se) {
			log.Fatalf("cannot start %s: %v", se.Path, se.Err)
		}
		log.Fatal(err) // an *stdio.ExitError carries the exit status and stderr tail
	}
	defer cs.Close() // stdin first, then SIGTERM and SIGKILL to the group, then reap
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name)
	}
}

// New checks the options and starts nothing.
func ExampleNew_validation() {
	f, err := stdio.New("docs-server", nil, nil)
	fmt.Println(f.Kind(), err)
	_, err = stdio.New("docs-server", nil, &stdio.Options{InheritEnv: []string{"PATH=/bin"}})
	fmt.Println(err)
	// Output:
	// stdio <nil>
	// stdio.New: invalid environment variable name "PATH=/bin"
}

// A connection that ended can say why.
func ExampleConn_Diagnose() {
	f, err := stdio.New("docs-server", nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	tr, _ := f.Transport()
	conn, err := tr.Connect(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	c := conn.(*stdio.Conn)
	defer c.Close()
	if _, err := c.Read(context.Background()); err != nil {
		if d := c.Diagnose(); d != nil {
			log.Printf("server %d ended: %v", c.Pid(), d)
		}
	}
}
