// Package hostile has no code of its own: its tests are this module's fault
// matrix. Each guarantee of the design (a tool runs at most once, nothing
// outlives Close, no credential leaves its origin, every bound holds, bad
// input fails at once with a typed error) is shown against hostile peers
// written in the tests themselves, independent of package fakeserver, on
// every transport (stdio, Streamable HTTP, legacy SSE) and revision
// (2025-11-25 stateful and stateless, 2026-07-28), with counters kept at the
// peer: executions, POSTs of a call id, requests at a second origin,
// processes in /proc, bytes of heap.
//
// The hostile authorization server matrix lives beside the door it attacks,
// in package auth's tests (TestHostileAuthorizationServerMatrix).
package hostile
