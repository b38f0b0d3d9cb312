package client_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/looprig/mcp/client"
)

func TestModelNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	got := client.ModelNames("docs", []string{"lookup", "a.b", "a_b", "a/b", "weird name!", long})
	want := map[string]string{
		"lookup":      "mcp__docs__lookup",
		"a_b":         "mcp__docs__a_b", // needed no replacement: keeps the readable name
		"a.b":         "mcp__docs__a_b_" + hash8("a.b"),
		"a/b":         "mcp__docs__a_b_" + hash8("a/b"),
		"weird name!": "mcp__docs__weird_name_",
		long:          ("mcp__docs__" + long)[:55] + "_" + hash8(long),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ModelNames() mismatch (-want +got):\n%s", diff)
	}
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	seen := map[string]string{}
	for tool, m := range got {
		if !valid.MatchString(m) {
			t.Errorf("model name %q of %q is not [A-Za-z0-9_-]{1,64}", m, tool)
		}
		if other, dup := seen[m]; dup {
			t.Errorf("tools %q and %q share model name %q", tool, other, m)
		}
		seen[m] = tool
	}
}

func TestModelNamesCollisionWithoutCleanName(t *testing.T) {
	got := client.ModelNames("s", []string{"a.b", "a/b"})
	// Both needed a replacement, so the smaller in byte order keeps the
	// plain name: '.' (0x2e) sorts before '/' (0x2f).
	want := map[string]string{"a.b": "mcp__s__a_b", "a/b": "mcp__s__a_b_" + hash8("a/b")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ModelNames() mismatch (-want +got):\n%s", diff)
	}
}

func TestModelNamesIgnoreOrder(t *testing.T) {
	tools := []string{"a.b", "a/b", "a_b", "a b", "lookup", strings.Repeat("y", 70), "z"}
	want := client.ModelNames("srv.1", tools)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		if diff := cmp.Diff(want, client.ModelNames("srv.1", tools)); diff != "" {
			t.Fatalf("shuffle %d: ModelNames() mismatch (-want +got):\n%s", i, diff)
		}
	}
}

func hash8(s string) string {
	return fmt.Sprintf("%x", sha256sum(s))[:8]
}
