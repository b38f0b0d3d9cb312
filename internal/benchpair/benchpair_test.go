package benchpair

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every side runs once per iteration, the first side first in the first
// iteration, the order rotating after.
func TestRunTakesTurns(t *testing.T) {
	var order []string
	ops := 0
	side := func(name string) Side {
		return Side{Name: name, Op: func() {
			if ops++; len(order) < 9 {
				order = append(order, name)
			}
		}}
	}
	res := testing.Benchmark(func(b *testing.B) {
		order, ops = order[:0], 0
		Run(b, side("a"), side("b"), side("c"))
	})
	want := []string{"a", "b", "c", "b", "c", "a", "c", "a", "b"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
	if ops != 3*res.N {
		t.Errorf("ran %d operations in %d iterations, want 3 each", ops, res.N)
	}
	for _, m := range []string{"a-ns/op", "b-ns/op", "c-ns/op"} {
		if _, ok := res.Extra[m]; !ok {
			t.Errorf("no %s metric in %v", m, res.Extra)
		}
	}
}
