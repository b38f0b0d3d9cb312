// Package hostileclient has no code of its own: its tests are this
// module's server under hostile and broken clients, the mirror of
// test/hostile's fault matrix (hostile servers against the client).
//
// TestHostileClientMatrix attacks package server's HTTPHandler, in both of
// its modes (sessions for older clients, and Stateless), as a client can:
// bodies past the bound, chunked or empty; JSON that two readers read
// differently (key case, duplicates, depth); ids the reply could not carry
// back; headers that disagree with the body or come twice; rebinding
// (Host, Origin); forged, foreign and surplus sessions; tampered, moved,
// replayed, expired and missing continuations; tasks (a poll flood, guessed
// and another principal's task ids, Mcp-Name or Mcp-Method that is not the
// task's, the extension undeclared, an update of a finished task, the task
// store past its bound); slow headers and bodies, and
// connections past the bound, on the servers this module starts itself;
// good calls beside hostile ones, and one continuation raced by many. Each
// case counts the executions of the tools at the server — 0 for every
// request that is refused — and says how the request was answered; where
// it tells something, the go-sdk's own StreamableHTTPHandler is sent the
// same request and measured beside (what it does is shown, not required).
// The matrix prints a table of the cases held of those run (go test -v).
package hostileclient
