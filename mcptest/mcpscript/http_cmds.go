package mcpscript

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport"
	"github.com/looprig/mcp/transport/sse"
	"github.com/looprig/mcp/transport/streamablehttp"
	"github.com/rogpeppe/go-internal/testscript"
)

// httpFlags are the flags of connect http and connect sse.
type httpFlags struct {
	tokenEnv       string
	maxEventBytes  int64
	noStandalone   bool
	maxResumeTries int
}

// remoteFactory parses `http [FLAGS] URL` or `sse [FLAGS] URL` and returns
// the factory, and the cassette options that redact its credential if it
// is recorded.
func remoteFactory(ts *testscript.TestScript, kind string, args []string) (transport.Factory, cassette.Options, error) {
	fs := flags(ts, "connect "+kind, connectUsage)
	var hf httpFlags
	var cf credFlags
	fs.StringVar(&hf.tokenEnv, "token-env", "", "")
	fs.StringVar(&cf.clientID, "client-id", "", "")
	fs.StringVar(&cf.secretEnv, "client-secret-env", "", "")
	fs.StringVar(&cf.workloadFile, "workload-token-file", "", "")
	fs.BoolVar(&cf.dpop, "dpop", false, "")
	fs.Int64Var(&hf.maxEventBytes, "max-event-bytes", 0, "")
	headerTimeout := fs.Duration("header-timeout", 0, "")
	if kind == "http" {
		fs.BoolVar(&hf.noStandalone, "no-standalone", false, "")
		fs.IntVar(&hf.maxResumeTries, "max-resume-attempts", 0, "")
	}
	parse(ts, fs, args)
	if fs.NArg() != 1 {
		fs.Usage()
	}
	url := fs.Arg(0)
	var creds auth.Source
	var tok auth.Token
	if hf.tokenEnv != "" {
		v := ts.Getenv(hf.tokenEnv)
		if v == "" {
			ts.Fatalf("connect: -token-env %s: the variable is empty", hf.tokenEnv)
		}
		tok = auth.NewToken(v)
		creds = auth.Bearer(tok)
	}
	if src, err := cf.source(ts, creds != nil); err != nil {
		return nil, cassette.Options{}, err
	} else if src != nil {
		creds = src
	}
	var copts cassette.Options
	if !tok.IsZero() {
		copts.Revealers = []cassette.Revealer{tok}
	}
	if kind == "sse" {
		o := &sse.Options{Credentials: creds}
		o.Limits.MaxEventBytes = hf.maxEventBytes
		o.Timeouts.ResponseHeader = *headerTimeout
		f, err := sse.New(url, o)
		return f, copts, err
	}
	o := &streamablehttp.Options{
		Credentials:          creds,
		DisableStandaloneSSE: hf.noStandalone,
		MaxResumeAttempts:    hf.maxResumeTries,
	}
	o.Limits.MaxEventBytes = hf.maxEventBytes
	o.Timeouts.ResponseHeader = *headerTimeout
	f, err := streamablehttp.New(url, o)
	return f, copts, err
}

// credFlags are connect's flags for the sources that obtain tokens.
type credFlags struct {
	clientID, secretEnv string
	workloadFile        string
	dpop                bool
}

// source returns the source the flags ask for, or nil; static says a
// static token was asked for too.
func (cf *credFlags) source(ts *testscript.TestScript, static bool) (auth.Source, error) {
	var hc *http.Client
	if cf.dpop {
		key, err := auth.NewDPoPKey(nil)
		if err != nil {
			return nil, err
		}
		hc = key.Client(nil)
	}
	switch {
	case cf.clientID != "" && cf.workloadFile != "", (cf.clientID != "" || cf.workloadFile != "") && static:
		ts.Fatalf("connect: one of -token-env, -client-id and -workload-token-file")
	case cf.workloadFile != "":
		return auth.NewWorkloadIdentity(&auth.WorkloadIdentityConfig{TokenFile: ts.MkAbs(cf.workloadFile), HTTPClient: hc})
	case cf.clientID != "":
		if cf.secretEnv == "" {
			ts.Fatalf("connect: -client-id needs -client-secret-env")
		}
		secret := ts.Getenv(cf.secretEnv)
		if secret == "" {
			ts.Fatalf("connect: -client-secret-env %s: the variable is empty", cf.secretEnv)
		}
		return auth.NewClientCredentials(&auth.ClientCredentialsConfig{ClientID: cf.clientID, ClientSecret: auth.NewSecret(secret), HTTPClient: hc})
	case cf.dpop:
		ts.Fatalf("connect: -dpop needs -client-id or -workload-token-file")
	}
	return nil, nil
}

// serveScriptHTTP starts the fake server srv over HTTP for a script,
// records it under name and sets NAME_URL (and NAME_OTHER_URL, the other
// origin) in the script's environment.
func serveScriptHTTP(ts *testscript.TestScript, st *state, name string, srv *fakeserver.Server, o *fakeserver.HTTPOptions) {
	hs, err := srv.StartHTTP("", o)
	ts.Check(err)
	st.mu.Lock()
	st.https[name] = hs
	st.mu.Unlock()
	prefix := envName(name)
	ts.Setenv(prefix+"_URL", hs.URL)
	ts.Setenv(prefix+"_OTHER_URL", hs.OtherURL)
	fmt.Fprintf(ts.Stdout(), "%s\n", hs.URL)
}

var notEnv = regexp.MustCompile(`[^A-Z0-9_]`)

// envName turns a server name into an environment variable prefix: upper
// case, other characters replaced by _.
func envName(name string) string {
	return notEnv.ReplaceAllString(strings.ToUpper(name), "_")
}

func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "requests [-other] SERVER"
	fs := flags(ts, "requests", usage)
	other := fs.Bool("other", false, "")
	parse(ts, fs, args)
	if neg || fs.NArg() != 1 {
		fs.Usage()
	}
	st := stateOf(ts)
	st.mu.Lock()
	hs := st.https[fs.Arg(0)]
	st.mu.Unlock()
	if hs == nil {
		ts.Fatalf("requests: no server %q over HTTP: serve -http it first", fs.Arg(0))
	}
	rs := hs.Requests()
	if *other {
		rs = hs.OtherRequests()
	}
	streams := map[string]string{}
	for _, r := range rs {
		r.LastEventID = aliasEventID(streams, r.LastEventID)
		r.SentEventID = aliasEventID(streams, r.SentEventID)
		fmt.Fprintf(ts.Stdout(), "%s\n", r)
	}
}

// aliasEventID rewrites a go-sdk event id, STREAM_INDEX with a random
// STREAM, as stream-N_INDEX, N numbering the streams in order of first
// appearance, so that a script's output is the same on every run.
func aliasEventID(streams map[string]string, id string) string {
	i := strings.LastIndexByte(id, '_')
	if i < 0 {
		return id
	}
	a, ok := streams[id[:i]]
	if !ok {
		a = fmt.Sprintf("stream-%d", len(streams)+1)
		streams[id[:i]] = a
	}
	return a + id[i:]
}
