package bench

import (
	"io"
	"log/slog"
	"os"
	"testing"
)

// TestMain silences the default logger: mcp-go's test client logs an error
// when its pipe closes, which would land inside benchmark result lines.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}
