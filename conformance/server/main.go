// Command server is the conformance server: it publishes, through this
// module's server package, the tools, resources and prompts that the
// official MCP conformance suite (@modelcontextprotocol/conformance)
// exercises, so that the suite can test the server package end to end.
//
// It follows the argv contract of the go-sdk's own conformance server:
//
//	server -http=127.0.0.1:3000              # Streamable HTTP at every path (the suite uses /mcp)
//	server -http=127.0.0.1:3000 -stateless   # the same, keeping no session for any client
//	server                                   # stdio
//
// Over HTTP it serves both protocol revisions as server.HTTPHandler does:
// 2026-07-28 requests without a session, and, unless -stateless is given,
// 2025-11-25 clients in stateful sessions (the GET stream, DELETE,
// Last-Event-ID resumption, server-to-client requests). With -stateless a
// 2025-11-25 client gets no session, and the tools that need the user
// fail for it. (The go-sdk's server defaults to -stateless=true; this one
// to server.HTTPOptions' default.) scripts/conformance builds it, starts it
// on a free loopback port and runs the suite against it.
//
// It publishes what the suite's server scenarios call for, at 2025-11-25
// and at 2026-07-28 (current.go), and the tools of the tasks extension's
// scenarios (tasks.go), which run as tasks for a client that declares the
// extension. Its tools that need the user are written once, as
// input-required results.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/looprig/mcp/internal/httpserve"
	"github.com/looprig/mcp/server"
)

func main() {
	httpAddr := flag.String("http", "", "if set, serve Streamable HTTP at this address instead of stdio")
	stateless := flag.Bool("stateless", false, "over HTTP, keep no session for any client (server.HTTPOptions.Stateless)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("conformance server: ")

	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *httpAddr == "" {
		if err := srv.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
			log.Fatal(err)
		}
		return
	}
	if err := serveHTTP(ctx, srv, *httpAddr, &server.HTTPOptions{Stateless: *stateless}); err != nil {
		log.Fatal(err)
	}
}

// serveHTTP serves srv at addr until ctx is done.
func serveHTTP(ctx context.Context, srv *server.Server, addr string, opts *server.HTTPOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		ln.Close()
		return err
	}
	hs := httpserve.New(h, nil, nil, log.Default())
	log.Printf("listening at http://%s (stateless: %v)", ln.Addr(), opts.Stateless)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		h.Close()
		return err
	case <-ctx.Done():
	}
	h.Close() // ends the sessions, so that their streams let Shutdown finish
	// Shutdown also waits for connections a client opened but never sent a
	// request on (net/http gives them 5 s); after a short grace, close
	// whatever is left.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		if err := hs.Close(); err != nil {
			return fmt.Errorf("closing the HTTP server: %w", err)
		}
	}
	<-errc
	return nil
}
