// Command server is the conformance server: it publishes, through this
// module's server package, the tools, resources and prompts that the
// official MCP conformance suite (@modelcontextprotocol/conformance)
// exercises, so that the suite can test the server package end to end.
//
// It follows the argv contract of the go-sdk's own conformance server:
//
//	server -http=127.0.0.1:3000   # Streamable HTTP at every path (the suite uses /mcp)
//	server                        # stdio
//
// The server is stateful (sessions, the standalone GET stream, DELETE and
// Last-Event-ID resumption); -stateless=true is refused, because the
// server package does not serve stateless HTTP. scripts/conformance builds
// it, starts it on a free loopback port and runs the suite against it.
//
// It publishes what the suite's 2025-11-25 server scenarios call for; the
// draft-revision (2026-07-28) scenarios that need a stateless server are
// not served.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/looprig/mcp/server"
)

func main() {
	httpAddr := flag.String("http", "", "if set, serve Streamable HTTP at this address instead of stdio")
	stateless := flag.Bool("stateless", false, "serve stateless Streamable HTTP (not supported: the server package is stateful)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("conformance server: ")
	if *stateless {
		log.Fatal("-stateless=true is not supported: the server package serves stateful sessions")
	}

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
	if err := serveHTTP(ctx, srv, *httpAddr); err != nil {
		log.Fatal(err)
	}
}

// serveHTTP serves srv at addr until ctx is done.
func serveHTTP(ctx context.Context, srv *server.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := srv.HTTPHandler(nil)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("listening at http://%s", ln.Addr())
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
