package hostileclient_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/looprig/mcp/internal/httpserve"
	"github.com/looprig/mcp/server"
)

// bound is the header and body bound of the servers the slow cases start:
// short, so that a cut comes at once.
const bound = 200 * time.Millisecond

// own serves tg's handler as this module serves its own (httpserve), with
// limits l, and returns its address.
func own(t *testing.T, tg *target, l *httpserve.Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httpserve.New(tg.h, nil, l, nil)
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String()
}

// drip sends head, then one byte every 10 ms, until the server closes the
// connection ("cut") or ctx ends ("not cut").
func drip(ctx context.Context, addr, head string) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if _, err := io.WriteString(c, head); err != nil {
		return "cut"
	}
	for {
		if _, err := c.Write([]byte("x")); err != nil {
			if ctx.Err() != nil {
				return "not cut"
			}
			return "cut"
		}
		select {
		case <-ctx.Done():
			return "not cut"
		case <-time.After(10 * time.Millisecond): // the drip's own pace
		}
	}
}

// dripBody is the head of a POST whose body, within the targets' bound
// (60,000 bytes: 10 minutes at the drip's pace), is then dripped.
const dripBody = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nContent-Length: 60000\r\n\r\n{\"jsonrpc\":\"2.0\""

// slowBounds are the limits of the slow cases' servers; their handlers
// read a body within the same bound.
func slowBounds(_ *server.Options, ho *server.HTTPOptions) { ho.BodyTimeout = bound }

var slowCases = []hostileCase{
	{group: "slow clients", name: "a body dripped a byte per 10 ms", edit: slowBounds,
		attack: func(t *testing.T, tg *target) string {
			addr := own(t, tg, &httpserve.Limits{HeaderTimeout: bound, BodyTimeout: bound})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return drip(ctx, addr, dripBody)
		}, want: both("cut", 0)},
	{group: "slow clients", name: "a body dripped past a handler that peeks",
		edit: func(_ *server.Options, ho *server.HTTPOptions) { ho.BodyTimeout = time.Hour },
		attack: func(t *testing.T, tg *target) string {
			// A logger in front reads the body first and swallows its
			// timeout, as fakeserver's request log does; the handler's own
			// read, with a bound of an hour, must not start the clock again:
			// the server's bound holds.
			inner := tg.h
			tg.h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				head, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(io.MultiReader(strings.NewReader(string(head)), r.Body))
				inner.ServeHTTP(w, r)
			})
			ln := own(t, tg, &httpserve.Limits{HeaderTimeout: bound, BodyTimeout: bound})
			tg.h = inner
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return drip(ctx, ln, dripBody)
		}, want: both("cut", 0)},
	{group: "slow clients", name: "headers dripped a byte per 10 ms", edit: slowBounds,
		attack: func(t *testing.T, tg *target) string {
			addr := own(t, tg, &httpserve.Limits{HeaderTimeout: bound, BodyTimeout: bound})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return drip(ctx, addr, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
		}, want: both("cut", 0)},
	{group: "slow clients", name: "20 slow clients beside a good one",
		attack: func(t *testing.T, tg *target) string {
			addr := own(t, tg, &httpserve.Limits{HeaderTimeout: time.Hour, BodyTimeout: time.Hour, MaxConns: 64})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var wg sync.WaitGroup
			defer func() { cancel(); wg.Wait() }()
			for i := range 20 {
				wg.Go(func() {
					if i%2 == 0 {
						drip(ctx, addr, dripBody)
					} else {
						drip(ctx, addr, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
					}
				})
			}
			body, hs := echo26("1", "")
			return postTo(t, addr, body, hs).String()
		}, want: both("200", 1)},
	{group: "slow clients", name: "connections past the bound (4)",
		attack: func(t *testing.T, tg *target) string {
			addr := own(t, tg, &httpserve.Limits{MaxConns: 4})
			var held []net.Conn
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for range 4 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, c)
				// A request answered proves the connection counted.
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				if _, err := c.Read(make([]byte, 1)); err != nil {
					t.Fatal(err)
				}
			}
			body, hs := echo26("1", "")
			return postTo(t, addr, body, hs).String()
		}, want: both("503", 0)},
}

// postTo posts body to the server at addr, on a connection of its own.
func postTo(t *testing.T, addr, body string, hs header) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i < len(hs); i += 2 {
		req.Header.Add(hs[i], hs[i+1])
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return answer{body: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return parse(resp.StatusCode, string(b))
}

var concurrencyCases = []hostileCase{
	{group: "concurrency", name: "100 good calls beside 50 hostile ones",
		attack: func(t *testing.T, tg *target) string {
			var good, refused atomic.Int64
			var wg sync.WaitGroup
			state := tg.ask(t)
			tg.answer(t, state, nil)
			tg.mark()
			for i := range 150 {
				wg.Go(func() {
					if i%3 != 2 {
						body, hs := echo26(fmt.Sprint(i+10), "")
						if a := tg.post(t, body, hs, nil); a.status == http.StatusOK && a.code == 0 && a.id == fmt.Sprint(i+10) {
							good.Add(1)
						}
						return
					}
					var a answer
					switch i % 9 {
					case 2:
						a = tg.answer(t, state, nil) // a replay
					case 5:
						body, hs := echo26("9007199254740993", "")
						a = tg.post(t, body, hs, nil)
					default:
						body, hs := echo26("1", "")
						a = tg.post(t, strings.Replace(body, `"_meta"`, `"_META"`, 1), hs, nil)
					}
					if a.code != 0 {
						refused.Add(1)
					}
				})
			}
			wg.Wait()
			return fmt.Sprintf("%d of 100 answered, %d of 50 refused", good.Load(), refused.Load())
		}, want: both("100 of 100 answered, 50 of 50 refused", 100)},
	{group: "concurrency", name: "one continuation raced by 10", sdk: "stateless",
		attack: func(t *testing.T, tg *target) string {
			state := tg.ask(t)
			tg.mark()
			var accepted atomic.Int64
			var wg sync.WaitGroup
			for range 10 {
				wg.Go(func() {
					if a := tg.answer(t, state, nil); a.status == http.StatusOK && a.code == 0 {
						accepted.Add(1)
					}
				})
			}
			wg.Wait()
			return fmt.Sprintf("%d of 10 accepted", accepted.Load())
		}, want: both("1 of 10 accepted", 1)},
}
