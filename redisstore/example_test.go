package redisstore_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/looprig/mcp/redisstore"
	"github.com/looprig/mcp/server"
	"github.com/redis/go-redis/v9"
)

// A replica of a fleet behind a load balancer: run the same on every
// machine, with the same MCP_STATE_KEY (32 bytes or more, from a secret
// store) and the same Redis.
func Example() {
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs:        []string{"redis.internal:6379"}, // several: Cluster; with MasterName: Sentinel
		ReadTimeout:  500 * time.Millisecond,          // how long a request waits on a Redis that does not answer
		WriteTimeout: 500 * time.Millisecond,
	})
	defer rdb.Close()
	if err := redisstore.CheckConfig(context.Background(), rdb); err != nil {
		log.Fatal(err) // a Redis that evicts keys would let a used state be accepted again
	}
	tasks := redisstore.NewTaskStore(rdb, nil)
	defer tasks.Close() // after the server's Close, deferred below

	srv, err := server.New("files", "v1.0.0", &server.Options{
		StateKey:   []byte(os.Getenv("MCP_STATE_KEY")),
		StateStore: redisstore.NewStateStore(rdb, nil),
		Tasks:      &server.TaskOptions{Store: tasks},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	// ... srv.RegisterTool, srv.RegisterTaskTool ...

	h, err := srv.HTTPHandler(&server.HTTPOptions{Stateless: true}) // any request to any replica
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	log.Fatal(http.ListenAndServe(":8080", h))
}
