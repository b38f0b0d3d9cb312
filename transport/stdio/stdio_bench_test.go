package stdio_test

// The benchmarks compare this package with the go-sdk's mcp.CommandTransport
// on the same child (the test binary serving a go-sdk server). Run
//
//	go test -run '^$' -bench . -count 5 ./transport/stdio/
//
// BenchmarkCloseStubborn uses each transport's default graces, so one
// iteration takes seconds (go-sdk: 5s+5s): it always runs once per count.

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/looprig/mcp/internal/benchpair"
	"github.com/looprig/mcp/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchTransports returns a new transport per iteration for the child in
// mode, from this package and from the go-sdk, with the same environment.
func benchTransports(b *testing.B, mode string, extra map[string]string) map[string]func() mcp.Transport {
	f := newFactory(b, mode, &stdio.Options{Env: extra})
	exe := testExe(b)
	env := []string{childEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	for _, name := range stdio.DefaultInheritEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	slices.Sort(env)
	return map[string]func() mcp.Transport{
		"looprig": func() mcp.Transport {
			tr, err := f.Transport()
			if err != nil {
				b.Fatal(err)
			}
			return tr
		},
		"gosdk": func() mcp.Transport {
			cmd := exec.Command(exe)
			cmd.Env = env
			return &mcp.CommandTransport{Command: cmd}
		},
	}
}

// Connect (start the child, initialize), list tools, close.
func BenchmarkConnectListClose(b *testing.B) {
	trs := benchTransports(b, "serve", nil)
	for _, name := range []string{"looprig", "gosdk"} {
		b.Run(name, func(b *testing.B) {
			op := connectListClose(b, trs[name])
			for b.Loop() {
				op()
			}
		})
	}
}

// connectListClose returns a connect, list tools and close over the
// transports tr makes.
func connectListClose(b *testing.B, tr func() mcp.Transport) func() {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	return func() {
		cs, err := client.Connect(ctx, tr(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			b.Fatal(err)
		}
		if err := cs.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// Close a child that ignores both the end of stdin and SIGTERM, with each
// transport's default graces.
func BenchmarkCloseStubborn(b *testing.B) {
	ctx := context.Background()
	_, env := recordFile(b)
	trs := benchTransports(b, "stubborn", env)
	for _, name := range []string{"looprig", "gosdk"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				conn, err := trs[name]().Connect(ctx)
				if err != nil {
					b.Fatal(err)
				}
				conn.Close()
			}
		})
	}
}

// BenchmarkConnectListClosePaired is BenchmarkConnectListClose with the
// sides taking turns connection by connection (internal/benchpair): their
// NAME-ns/op (and NAME-cpu-ns/op, the process's CPU time) are measured in
// the same moments, which makes their ratio fair on a busy machine. Each
// transport is there twice, so that a control (gosdk-again over gosdk)
// says how far from 1.0 the method reads two equal sides, and each
// transport's code runs as often as the other's. scripts/bench reports it.
func BenchmarkConnectListClosePaired(b *testing.B) {
	trs := benchTransports(b, "serve", nil)
	benchpair.Run(b,
		benchpair.Side{Name: "looprig", Op: connectListClose(b, trs["looprig"])},
		benchpair.Side{Name: "looprig-again", Op: connectListClose(b, trs["looprig"])},
		benchpair.Side{Name: "gosdk", Op: connectListClose(b, trs["gosdk"])},
		benchpair.Side{Name: "gosdk-again", Op: connectListClose(b, trs["gosdk"])},
	)
}
