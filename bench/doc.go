// Package bench measures an in-process tool call to a user-defined fake
// through mcptest beside the same call through mark3labs/mcp-go v1.2.1's
// mcptest and through the go-sdk's NewInMemoryTransports, in one run. It
// is a module of its own so that mcp-go stays out of the main module's
// go.mod:
//
//	cd bench && go test -run '^$' -bench . -count 10 | tee bench.txt && benchstat -col /sub bench.txt
//
// Every variant serves one tool, get_weather, whose input schema requires
// a string city and whose reply is one text content, and calls it with the
// same arguments; each iteration is one tools/call and its reply. The
// looprig and go-sdk variants run at both protocol revisions: 2026-07-28
// carries the client's identity and capabilities in every request's _meta,
// which the go-sdk's server decodes on each call.
//
// The ratios of this module's figures against their baselines (this
// benchmark's among them), measured in rounds of paired benchmarks whose
// sides take turns call by call (BenchmarkCallToolPaired here), so that a
// machine shared with other work slows both alike, are what scripts/bench
// prints (./ratios computes the table):
//
//	scripts/bench                # from the repository's root
//
// What share of the cost is this module's: profile the looprig variant and
// attribute each sample to the innermost frame that belongs to a module
// (this one, the go-sdk, its JSON decoder, jsonschema-go), which ./shares
// does with pprof's traces:
//
//	go test -run '^$' -bench 'CallTool/looprig-mcptest/2026' -benchtime 30000x -cpuprofile cpu.out -memprofile mem.out
//	go tool pprof -traces bench.test cpu.out | go run ./shares
//	go tool pprof -sample_index=alloc_space -traces bench.test mem.out | go run ./shares
//
// Nearly all the bytes are the go-sdk's JSON decoder (its internal/json
// Unmarshal makes a segmentio Decoder, which starts with a 32 KiB buffer,
// for every message and every params, result and _meta it decodes), and
// most of the time is that decoder and the garbage collection its buffers
// cause.
package bench
