// Package adoption is the adoption proof: the smallest complete use of this
// library, run by `mcprig demo` and by this package's test.
//
// It starts the deterministic fake server as a supervised stdio child,
// discovers its one tool, installs it into a small harness loop driven by a
// scripted "model" that calls tools by model name, disables the tool's
// binding, and checks what a harness relies on: the model name
// mcp__docs__lookup, the disabled status, that the disabled call never
// reached the server (the fake server's execution counter), and that Close
// reaped the child and left its process group empty.
package adoption
