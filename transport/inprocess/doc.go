// Package inprocess connects a client to a go-sdk server in the same process.
//
// Messages are handed over as values, without a pipe and without
// re-encoding. A request's params and a response's result are already
// encoded JSON (json.RawMessage) when the go-sdk writes them. So the
// receiver decodes exactly the bytes it would have read from a stream.
// This makes an in-process call cheaper than the go-sdk's own
// mcp.NewInMemoryTransports, which frames every message over a net.Pipe.
//
//	f := inprocess.New(srv) // srv is an *mcp.Server
//	c, err := client.Connect(ctx, client.Definition{Name: "docs", Transport: f}, nil)
package inprocess
