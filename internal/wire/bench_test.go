package wire

import (
	"github.com/looprig/mcp/internal/testkit"
	"testing"
)

func BenchmarkEnvelope(b *testing.B) {
	for _, bc := range []struct {
		name string
		data []byte
	}{{"call", []byte(testkit.BenchCall)}, {"result64k", testkit.BenchResult()}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Envelopes(bc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
