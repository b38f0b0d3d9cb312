package hostileclient_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/server"
)

// An outcome is what one attack led to: how it was answered, and how many
// times the server's tools ran for it.
type outcome struct {
	answer string
	execs  int64
}

func (o outcome) String() string { return fmt.Sprintf("%s, %d run", o.answer, o.execs) }

// A hostileCase is one way a client attacks the server.
type hostileCase struct {
	group, name string
	// modes are the handler modes it applies to (nil: both).
	modes []string
	// sdk is the mode of the go-sdk's own handler to measure beside
	// ("": none).
	sdk string
	// edit and wrap set up the target (this module's options; a handler
	// in front).
	edit func(*server.Options, *server.HTTPOptions)
	wrap func(http.Handler) http.Handler
	// attack attacks tg and says how it was answered. It may call
	// tg.mark after its set-up: only executions after the mark count.
	attack func(t *testing.T, tg *target) string
	// want is the outcome the server must give in mode.
	want func(mode string) outcome
}

// both is the same outcome in both modes.
func both(answer string, execs int64) func(string) outcome {
	return func(string) outcome { return outcome{answer, execs} }
}

// byMode is an outcome for the default mode and one for Stateless.
func byMode(def, stateless outcome) func(string) outcome {
	return func(mode string) outcome {
		if mode == "stateless" {
			return stateless
		}
		return def
	}
}

// A row is one case run in one mode, for the table.
type row struct {
	group, name, mode string
	want, got         outcome
	sdk               string
}

// TestHostileClientMatrix runs every case on both handler modes: each
// holds when the server answers as the case wants and runs its tools as
// often (0 for every refused request). It prints the table of cases held
// of run, with the go-sdk's own handler measured beside where it tells
// something.
func TestHostileClientMatrix(t *testing.T) {
	var rows []row
	for _, c := range cases {
		sdk := ""
		if c.sdk != "" {
			t.Run(c.group+"/"+c.name+"/go-sdk", func(t *testing.T) {
				tg := newTarget(t, "go-sdk", c.sdk, nil, c.wrap)
				sdk = run(t, c, tg).String() + " (" + c.sdk + ")"
			})
		}
		for _, mode := range []string{"default", "stateless"} {
			if c.modes != nil && !contains(c.modes, mode) {
				continue
			}
			t.Run(c.group+"/"+c.name+"/"+mode, func(t *testing.T) {
				leakcheck.Check(t)
				tg := newTarget(t, "server", mode, c.edit, c.wrap)
				got, want := run(t, c, tg), c.want(mode)
				rows = append(rows, row{c.group, c.name, mode, want, got, sdk})
				if got != want {
					t.Errorf("%s: %v, want %v", c.name, got, want)
				}
			})
		}
	}
	printTable(t, rows)
}

func run(t *testing.T, c hostileCase, tg *target) outcome {
	tg.mark()
	answer := c.attack(t, tg)
	return outcome{answer, tg.execs.Load() - tg.base}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// printTable logs the rows and the count of cases held, by group.
func printTable(t *testing.T, rows []row) {
	var b strings.Builder
	held, refusedExecs := 0, int64(0)
	fmt.Fprintf(&b, "\n%-13s %-46s %-9s %-32s %-5s %s\n", "group", "case", "mode", "server (answer, tool runs)", "held", "go-sdk's own handler")
	for _, r := range rows {
		ok := "no"
		if r.got == r.want {
			ok, held = "yes", held+1
		}
		if r.want.execs == 0 {
			refusedExecs += r.got.execs
		}
		fmt.Fprintf(&b, "%-13s %-46s %-9s %-32s %-5s %s\n", r.group, r.name, r.mode, r.got, ok, r.sdk)
	}
	fmt.Fprintf(&b, "held: %d of %d cases run; tool runs for refused requests: %d\n", held, len(rows), refusedExecs)
	t.Log(b.String())
}

// mark starts counting executions.
func (tg *target) mark() { tg.base = tg.execs.Load() }
