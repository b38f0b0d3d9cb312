package client_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"
)

func sha256sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// backstop returns a context that ends at the test's own deadline (30s
// from now, cancelled at cleanup), for a call that a bound under test
// (Limits.CallTimeout, a transport's timeout) should end: should the bound
// be broken, the call ends there and notBackstopped fails the test,
// instead of the test hanging until go test's timeout.
func backstop(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// notBackstopped fails t when ctx, a backstop, has ended: the call it
// bounded ended at the test's deadline, not at the bound under test.
func notBackstopped(t *testing.T, ctx context.Context, err error) {
	t.Helper()
	if ctx.Err() != nil {
		t.Fatalf("the call ended at the test's deadline, not at the bound under test: %v", err)
	}
}
