package httpserve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/hostorigin"
	"github.com/looprig/mcp/internal/leakcheck"
	"github.com/looprig/mcp/internal/testkit"
)

// start serves h on a loopback port with limits l, stopped at cleanup.
func start(t *testing.T, h http.Handler, l *Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(h, nil, l, nil)
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String()
}

// echo answers with the length of the body it read, or the read's error.
func echo(reads chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if reads != nil {
			reads <- err
		}
		if err != nil {
			return
		}
		fmt.Fprintf(w, "read %d bytes", len(b))
	})
}

// drip opens a connection to addr and sends a POST whose body of 10⁶
// bytes it sends one byte every 10 ms, until the connection fails or ctx
// ends. It returns the connection's first failure.
func drip(ctx context.Context, addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	context.AfterFunc(ctx, func() { c.Close() })
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n"); err != nil {
		return err
	}
	for {
		if _, err := c.Write([]byte("x")); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond): // the drip's own pace, not a wait for the server
		}
	}
}

// TestSlowBodyCut drips a body to a server whose body bound is 200 ms: the
// handler's read fails with a timeout, and the connection is closed, long
// before the body could end (10⁶ bytes at one per 10 ms: almost 3 hours).
func TestSlowBodyCut(t *testing.T) {
	leakcheck.Check(t)
	reads := make(chan error, 1)
	addr := start(t, echo(reads), &Limits{BodyTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	began := time.Now()
	dripped := make(chan error, 1)
	go func() { dripped <- drip(ctx, addr) }()
	select {
	case err := <-reads:
		if !IsTimeout(err) {
			t.Errorf("the handler's read = %v, want a timeout", err)
		}
	case <-ctx.Done():
		t.Fatal("the handler is still reading the dripped body at the test's deadline")
	}
	if err := <-dripped; err == nil || ctx.Err() != nil {
		t.Errorf("the dripping client = %v (test context %v); want its connection closed by the server", err, ctx.Err())
	}
	t.Logf("a body dripped a byte per 10 ms cut after %v (bound 200 ms)", time.Since(began).Round(time.Millisecond))
}

// TestSlowClientsBesideAGoodOne holds 20 connections that drip their
// headers and 20 that drip their bodies, under bounds far longer than the
// test, and a good client beside them is answered at once, on a fresh
// connection, again and again.
func TestSlowClientsBesideAGoodOne(t *testing.T) {
	leakcheck.Check(t)
	addr := start(t, echo(nil), &Limits{HeaderTimeout: time.Hour, BodyTimeout: time.Hour, MaxConns: 64})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				drip(ctx, addr)
				return
			}
			if c, err := net.Dial("tcp", addr); err == nil {
				defer c.Close()
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
				<-ctx.Done()
			}
		}()
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 10 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", strings.NewReader("good"))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("good request %d beside 40 slow clients: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "read 4 bytes" {
			t.Fatalf("good request %d: %q", i, b)
		}
	}
}

// TestMaxConns holds MaxConns connections open and answered; the next is
// refused with 503 and closed; once one closes, a new one is served.
func TestMaxConns(t *testing.T) {
	leakcheck.Check(t)
	const max = 3
	addr := start(t, echo(nil), &Limits{MaxConns: max})
	get := func(c net.Conn) (string, error) {
		if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return "", err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b), nil
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		t.Cleanup(func() { c.Close() })
		return c
	}
	var open []net.Conn
	for i := range max {
		c := dial()
		if got, err := get(c); err != nil || got != "200 read 2 bytes" {
			t.Fatalf("connection %d of %d: %q, %v; want it served", i+1, max, got, err)
		}
		open = append(open, c)
	}
	over := dial()
	// Nothing is written before the request: an HTTP client takes bytes
	// on a connection it has not used yet for an unsolicited response,
	// drops the connection, and never sees the 503.
	over.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := over.Read(make([]byte, 1)); n != 0 || !IsTimeout(err) {
		t.Fatalf("connection %d before its request: read %d bytes, %v; want nothing yet", max+1, n, err)
	}
	over.SetDeadline(time.Now().Add(10 * time.Second))
	got, err := get(over)
	if err != nil || !strings.HasPrefix(got, "503 mcp: too many connections") {
		t.Fatalf("connection %d: %q, %v; want 503", max+1, got, err)
	}
	if _, err := over.Read(make([]byte, 1)); err == nil {
		t.Errorf("the refused connection is still open")
	}
	open[0].Close()
	// The server sees the close when it next reads the connection: poll
	// for the freed slot.
	testkit.Poll(t, "a new connection served after one closed", func() bool {
		got, err := get(dial())
		return err == nil && got == "200 read 2 bytes"
	})
}

// TestReadBody bounds one read by bytes and by time, and lifts its
// deadline afterwards.
func TestReadBody(t *testing.T) {
	leakcheck.Check(t)
	type result struct {
		n   int
		err error
	}
	results := make(chan result, 1)
	addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		max := int64(1 << 20)
		if r.URL.Path == "/small" {
			max = 4
		}
		b, err := ReadBody(w, r, max, 200*time.Millisecond)
		results <- result{len(b), err}
	}), &Limits{BodyTimeout: -1})
	for _, tc := range []struct {
		body    string
		wantN   int
		wantErr func(error) bool
	}{
		{"1234", 4, func(err error) bool { return err == nil }},
		{"12345", 0, func(err error) bool { _, ok := err.(*http.MaxBytesError); return ok }},
	} {
		resp, err := http.Post("http://"+addr+"/small", "text/plain", strings.NewReader(tc.body))
		if err == nil {
			resp.Body.Close()
		}
		r := <-results
		if !tc.wantErr(r.err) || (r.err == nil && r.n != tc.wantN) {
			t.Errorf("ReadBody of %q = %d bytes, %v", tc.body, r.n, r.err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dripped := make(chan error, 1)
	go func() { dripped <- drip(ctx, addr) }()
	select {
	case r := <-results:
		if !IsTimeout(r.err) {
			t.Errorf("ReadBody of a dripped body = %v, want a timeout", r.err)
		}
	case <-ctx.Done():
		t.Fatal("ReadBody is still reading a dripped body at the test's deadline")
	}
	if err := <-dripped; err == nil || ctx.Err() != nil {
		t.Errorf("the dripping client = %v (test context %v); want its connection closed by the server", err, ctx.Err())
	}
}

// TestReadBodyKeepsTheServersDeadline: a handler that swallows the
// timeout of its first read of a dripped body (as a logger peeking at the
// body may) and then calls ReadBody with a longer timeout of its own does
// not read on: ReadBody fails at once, and the connection is closed, within
// the server's body bound.
func TestReadBodyKeepsTheServersDeadline(t *testing.T) {
	leakcheck.Check(t)
	results := make(chan error, 1)
	addr := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the peek: its timeout is swallowed
		_, err := ReadBody(w, r, 1<<20, time.Hour)
		results <- err
		http.Error(w, "too slow", http.StatusRequestTimeout)
	}), &Limits{BodyTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dripped := make(chan error, 1)
	go func() { dripped <- drip(ctx, addr) }()
	select {
	case err := <-results:
		if !IsTimeout(err) {
			t.Errorf("ReadBody after the server's deadline = %v, want a timeout at once", err)
		}
	case <-ctx.Done():
		t.Fatal("ReadBody read on past the server's deadline")
	}
	if err := <-dripped; err == nil || ctx.Err() != nil {
		t.Errorf("the dripping client = %v (test context %v); want its connection closed by the server", err, ctx.Err())
	}
}

// TestNewRefusesOtherSites: a server New makes answers a rebound Host or
// a cross-site Origin 403 before its handler runs, by default; the door
// it is given admits more.
func TestNewRefusesOtherSites(t *testing.T) {
	leakcheck.Check(t)
	var mu sync.Mutex
	runs := 0
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mu.Lock(); runs++; mu.Unlock() })
	wide, err := hostorigin.New(hostorigin.Config{AllowedHosts: []string{"mcp.example"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		door         *hostorigin.Policy
		host, origin string
		want, runs   int
	}{
		{nil, "127.0.0.1", "", http.StatusOK, 1},
		{nil, "evil.example", "", http.StatusForbidden, 0},
		{nil, "localhost", "https://evil.example", http.StatusForbidden, 0},
		{nil, "localhost", "null", http.StatusForbidden, 0},
		{wide, "mcp.example", "", http.StatusOK, 1},
		{wide, "127.0.0.1", "", http.StatusForbidden, 0},
	} {
		mu.Lock()
		runs = 0
		mu.Unlock()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := New(h, tc.door, nil, nil)
		done := make(chan struct{})
		go func() { defer close(done); srv.Serve(ln) }()
		ctx, cancel := context.WithTimeout(testkit.Context(t), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+ln.Addr().String()+"/", strings.NewReader("{}"))
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err != nil {
			t.Errorf("Host %q, Origin %q: %v", tc.host, tc.origin, err)
		} else {
			resp.Body.Close()
			mu.Lock()
			if resp.StatusCode != tc.want || runs != tc.runs {
				t.Errorf("Host %q, Origin %q: status %d, handler ran %d times; want %d and %d", tc.host, tc.origin, resp.StatusCode, runs, tc.want, tc.runs)
			}
			mu.Unlock()
		}
		srv.Close()
		<-done
	}
	http.DefaultClient.CloseIdleConnections()
}
