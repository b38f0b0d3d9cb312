package mcpscript_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/looprig/mcp/mcptest/mcpscript"
)

// runTest runs test as go test runs a test function, for the examples
// below: with a real testing.TB (a benchmark's, run once), its cleanups,
// and its failures printed, so that a failure shows in the example's
// output. In your own code the function is a TestXxx.
func runTest(test func(t testing.TB)) {
	testing.Benchmark(func(b *testing.B) {
		test(exampleT{b})
		b.SkipNow() // one run: a benchmark would run its function again
	})
}

// exampleT prints a test's failures.
type exampleT struct{ testing.TB }

func (t exampleT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
	t.TB.Fail()
}
func (t exampleT) Error(args ...any) {
	fmt.Println(append([]any{"FAIL:"}, args...)...)
	t.TB.Fail()
}
func (t exampleT) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.TB.FailNow() }
func (t exampleT) Fatal(args ...any)                 { t.Error(args...); t.TB.FailNow() }

// The script commands, in testscript parameters ready for testscript.Run.
func ExampleParams() {
	fmt.Println(slices.Sorted(maps.Keys(mcpscript.Params("testdata/script").Cmds)))
	// Output: [authcounts authexpire authserver call catalog close cmpjson connect diagnose executions idtoken killchild procs requests rounds serve]
}

// Scenario files, run as a test (under a *testing.T each is a parallel
// subtest).
func ExampleRunScripts() {
	runTest(func(t testing.TB) {
		mcpscript.RunScripts(t, "testdata/example")
		fmt.Println("scripts passed:", !t.Failed())
	})
	// Output: scripts passed: true
}
