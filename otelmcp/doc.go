// Package otelmcp traces MCP clients and servers with OpenTelemetry, in a
// module of its own, so that github.com/looprig/mcp links no OpenTelemetry.
//
//	def := client.Definition{Name: "docs", Transport: tr,
//		SendingMiddleware: []mcp.Middleware{otelmcp.ClientMiddleware(nil)}}
//	srv.MCP().AddReceivingMiddleware(otelmcp.ServerMiddleware(nil)) // a server.Server, or any *mcp.Server
//
// [ClientMiddleware] starts a client span for every request and
// notification the client sends, and carries its trace context to the
// server in the message's "_meta", under the W3C keys "traceparent",
// "tracestate" and "baggage" (the MCP community's convention; every
// revision this module speaks has "params._meta"). [ServerMiddleware]
// starts a server span for every message a server receives, its parent
// taken from "_meta", so a call is one trace from the caller's span to
// the tool's handler. A request without params (a ping) carries no
// context; its span still starts.
//
// Spans follow OpenTelemetry's semantic conventions for MCP (status:
// development): the name is "{mcp.method.name} {target}", the target being
// the tool or prompt name ("tools/call lookup"); the attributes are
// mcp.method.name, gen_ai.tool.name and gen_ai.operation.name
// ("execute_tool") for tools/call, gen_ai.prompt.name, mcp.resource.uri,
// mcp.session.id and mcp.protocol.version where known, and error.type on
// failure: the JSON-RPC error code, "tool_error" for a tool result with
// isError set, or the Go error's type. The middleware cannot see the
// JSON-RPC id, so jsonrpc.request.id is not set.
//
// Cassettes ignore trace context: a traced session replays with other
// trace ids (package cassette, "Matching").
package otelmcp
