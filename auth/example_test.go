package auth_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/looprig/mcp/auth"
)

func ExampleToken() {
	tok := auth.NewToken("ghp_example")
	cfg := struct {
		Server string
		Token  auth.Token
	}{"docs", tok}

	fmt.Println(tok)
	fmt.Printf("%+v\n", cfg)
	_, err := json.Marshal(cfg)
	fmt.Println(errors.Is(err, auth.ErrNotMarshalable))
	fmt.Println(len(tok.Reveal()))
	// Output:
	// auth.Token(REDACTED)
	// {Server:docs Token:auth.Token(REDACTED)}
	// true
	// 11
}

func ExampleParseOrigin() {
	a, _ := auth.ParseOrigin("https://MCP.example.com:443/mcp")
	b, _ := auth.ParseOrigin("https://mcp.example.com/other")
	c, _ := auth.ParseOrigin("http://mcp.example.com/mcp")
	fmt.Println(a, a == b, a == c)
	// Output: https://mcp.example.com true false
}

func ExampleNewRoundTripper() {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other: "+r.Header.Get("Authorization"))
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "home: "+r.Header.Get("Authorization"))
		http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
	}))
	defer home.Close()

	origin, _ := auth.ParseOrigin(home.URL)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: auth.NewRoundTripper(tr, origin, auth.Bearer(auth.NewToken("t0k")))}
	resp, err := c.Get(home.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Printf("%q\n", got)
	// Output: ["home: Bearer t0k" "other: "]
}
