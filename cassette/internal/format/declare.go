package format

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/looprig/mcp/internal/canonjson"
)

// What a cassette declares in its header when it is recorded: the paths
// whose values change every run (Header.Volatile), and the digest of the
// redaction rules it was recorded with (Header.Redaction).

// MaxVolatile bounds the paths a header may declare volatile: each one is
// applied to every message matched.
const MaxVolatile = 256

// DigestPrefix starts a header's Redaction digest.
const DigestPrefix = "sha256:"

// AppendStrings appends ss as a JSON array of strings.
func AppendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = canonjson.AppendString(b, s)
	}
	return append(b, ']')
}

// CheckDeclared checks the declarations of a header read from a file.
func CheckDeclared(h *Header) error {
	if len(h.Volatile) > MaxVolatile {
		return fmt.Errorf("volatile: %d paths, more than %d", len(h.Volatile), MaxVolatile)
	}
	for i, p := range h.Volatile {
		if _, err := ParsePath(p); err != nil {
			return fmt.Errorf("volatile[%d] %s: %w", i, strconv.QuoteToASCII(p), err)
		}
	}
	if h.Redaction == "" {
		return nil
	}
	hexPart, ok := strings.CutPrefix(h.Redaction, DigestPrefix)
	if _, err := hex.DecodeString(hexPart); !ok || err != nil || len(hexPart) != 2*sha256.Size || strings.ToLower(hexPart) != hexPart {
		return fmt.Errorf("redaction %s: want %s and 64 lower-case hex digits", strconv.QuoteToASCII(h.Redaction), DigestPrefix)
	}
	return nil
}
