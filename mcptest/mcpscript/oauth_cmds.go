package mcpscript

import (
	"fmt"
	"github.com/looprig/mcp/mcptest/oauthtest"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

const authserverUsage = "authserver [-scope S]... [-token-ttl D] [-token-delay D] [-invalid-grant] [-wrong-issuer] [-loop401] " +
	"[-trust AUTHSERVER]... [-require-dpop] [-dpop-nonce] [-stale-nonces] [-refuse-grant CODE] NAME"

func cmdAuthServer(ts *testscript.TestScript, neg bool, args []string) {
	fs := flags(ts, "authserver", authserverUsage)
	st := stateOf(ts)
	var o oauthtest.AuthServerOptions
	fs.Func("scope", "", func(s string) error { o.Scopes = append(o.Scopes, s); return nil })
	fs.DurationVar(&o.TokenTTL, "token-ttl", 0, "")
	fs.DurationVar(&o.TokenDelay, "token-delay", 0, "")
	fs.BoolVar(&o.InvalidGrant, "invalid-grant", false, "")
	fs.BoolVar(&o.WrongIssuer, "wrong-issuer", false, "")
	fs.BoolVar(&o.Loop401, "loop401", false, "")
	fs.Func("trust", "", func(s string) error { o.Trust = append(o.Trust, st.auth(ts, s)); return nil })
	fs.BoolVar(&o.RequireDPoP, "require-dpop", false, "")
	fs.BoolVar(&o.DPoPNonce, "dpop-nonce", false, "")
	fs.BoolVar(&o.StaleNonces, "stale-nonces", false, "")
	fs.StringVar(&o.RefuseGrant, "refuse-grant", "", "")
	parse(ts, fs, args)
	if neg || fs.NArg() != 1 {
		fs.Usage()
	}
	name := fs.Arg(0)
	st.mu.Lock()
	_, dup := st.auths[name]
	st.mu.Unlock()
	if dup {
		ts.Fatalf("authserver: %q exists", name)
	}
	a, err := oauthtest.StartAuthServer(&o)
	if err != nil {
		ts.Fatalf("authserver %s: %v", name, err)
	}
	st.mu.Lock()
	st.auths[name] = a
	st.mu.Unlock()
	ts.Setenv(envName(name)+"_URL", a.URL)
	fmt.Fprintf(ts.Stdout(), "%s\n", a.URL)
}

func (st *state) auth(ts *testscript.TestScript, name string) *oauthtest.AuthServer {
	st.mu.Lock()
	defer st.mu.Unlock()
	a := st.auths[name]
	if a == nil {
		ts.Fatalf("no auth server %q: start it with authserver first", name)
	}
	return a
}

// authCountNames are the counters authcounts prints, in order.
var authCountNames = []string{"registrations", "authorizations", "tokens", "refreshes", "refusals", "resource-refusals",
	"jwt-bearer", "token-exchanges", "dpop-proofs", "dpop-refusals", "nonces"}

func authCountValues(c oauthtest.AuthCounts) map[string]int {
	return map[string]int{
		"registrations": c.Registrations, "authorizations": c.Authorizations, "tokens": c.TokensIssued,
		"refreshes": c.Refreshes, "refusals": c.Refusals, "resource-refusals": c.ResourceRefusals,
		"jwt-bearer": c.JWTBearerGrants, "token-exchanges": c.TokenExchanges,
		"dpop-proofs": c.DPoPProofs, "dpop-refusals": c.DPoPRefusals, "nonces": c.NoncesIssued,
	}
}

func cmdAuthCounts(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "authcounts NAME [COUNTER N]..."
	if len(args) < 1 || len(args)%2 != 1 {
		ts.Fatalf("usage: %s", usage)
	}
	v := authCountValues(stateOf(ts).auth(ts, args[0]).Counts())
	for _, n := range authCountNames {
		fmt.Fprintf(ts.Stdout(), "%s %d\n", n, v[n])
	}
	var wrong []string
	for i := 1; i < len(args); i += 2 {
		got, ok := v[args[i]]
		if !ok {
			ts.Fatalf("authcounts: unknown counter %q (want one of %s)", args[i], strings.Join(authCountNames, ", "))
		}
		want, err := strconv.Atoi(args[i+1])
		ts.Check(err)
		if got != want {
			wrong = append(wrong, fmt.Sprintf("%s %d, want %d", args[i], got, want))
		}
	}
	switch {
	case len(wrong) > 0 && !neg:
		ts.Fatalf("authcounts %s: %s", args[0], strings.Join(wrong, "; "))
	case len(wrong) == 0 && neg && len(args) > 1:
		ts.Fatalf("authcounts %s: every counter as given", args[0])
	}
}

func cmdAuthExpire(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "authexpire [-refresh] NAME"
	fs := flags(ts, "authexpire", usage)
	refresh := fs.Bool("refresh", false, "")
	parse(ts, fs, args)
	if neg || fs.NArg() != 1 {
		fs.Usage()
	}
	a := stateOf(ts).auth(ts, fs.Arg(0))
	if *refresh {
		a.RevokeRefreshTokens()
		return
	}
	a.ExpireTokens()
}

func cmdIDToken(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "idtoken [-ttl D] NAME SUBJECT AUDIENCE FILE"
	fs := flags(ts, "idtoken", usage)
	ttl := fs.Duration("ttl", 0, "")
	parse(ts, fs, args)
	if neg || fs.NArg() != 4 {
		fs.Usage()
	}
	a := stateOf(ts).auth(ts, fs.Arg(0))
	ts.Check(os.WriteFile(ts.MkAbs(fs.Arg(3)), []byte(a.IDToken(fs.Arg(1), fs.Arg(2), *ttl)+"\n"), 0o600))
}
