// Package auth keeps credentials out of logs, files and foreign origins.
//
// [Token] and [Secret] hold a value that only an explicit call to Reveal
// returns: fmt (every verb, also inside structs), log/slog, encoding/json,
// encoding.TextMarshaler, encoding.BinaryMarshaler and encoding/gob print a
// redaction or fail with [ErrNotMarshalable].
//
// A [Source] supplies the credential for requests to one [Origin]: [Bearer]
// is a static token, [OAuth] wraps a go-sdk OAuth handler (authorization
// code with pre-registration, client ID metadata documents or dynamic
// registration, scope step-up, refresh), and [NewClientCredentials] is a
// confidential client with no user: the OAuth client credentials grant,
// authenticated with a client secret (client_secret_basic) or a signed JWT
// (private_key_jwt), for CI jobs and services. [NewRoundTripper] attaches it to a
// request only when that request's origin is the validated one, checking
// every request, including those an http.Client makes to follow redirects.
//
//	origin, err := auth.ParseOrigin("https://mcp.example.com/mcp")
//	if err != nil { … }
//	tok := auth.NewToken(os.Getenv("MCP_TOKEN"))
//	rt := auth.NewRoundTripper(nil, origin, auth.Bearer(tok))
//	fmt.Println(tok) // auth.Token(REDACTED)
//
// The remote transports (transport/streamablehttp, transport/sse) take a
// Source and do this wiring themselves.
package auth
