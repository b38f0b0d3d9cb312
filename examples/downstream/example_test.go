package downstream_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"example.com/downstream"
	"github.com/looprig/mcp/client"
	"github.com/looprig/mcp/fakeserver"
	"github.com/looprig/mcp/transport/inprocess"
)

// The agent step against the fake weather server, each call delayed as a
// slow network would: one call per city, in order.
func ExampleForecast() {
	fs, err := fakeserver.New(&fakeserver.Options{
		Custom: weather,
		Faults: []fakeserver.Fault{{Kind: fakeserver.FaultDelay, Tool: "get_weather", Delay: time.Millisecond}},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Definition{Name: "weather", Transport: fs.Factory()}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for _, line := range downstream.Forecast(ctx, c, "Oslo", "Rome") {
		fmt.Println(line)
	}
	fmt.Println("calls:", fs.Counts().Executions["get_weather"])
	// Output:
	// Oslo: sunny in Oslo
	// Rome: sunny in Rome
	// calls: 2
}

// The team's own server, called in-process by this module's client.
func ExampleNewServer() {
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Definition{Name: "units", Transport: inprocess.New(downstream.NewServer())}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "convert", map[string]any{"value": 37, "from": "c"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StructuredContent)
	// Output: map[unit:f value:98.6]
}
