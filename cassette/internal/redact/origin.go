package redact

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/looprig/mcp/auth"
	"github.com/looprig/mcp/internal/canonjson"
)

// OriginName stands for the recorded server's host and port wherever they
// appear, as a request's URL keeps only its path: a loopback port would
// make every recording differ. "http://127.0.0.1:34223/x" is recorded as
// "http://ORIGIN/x", and "127.0.0.1:34223" alone as "ORIGIN". Replay puts
// the origin of the request it answers back in place of "http://ORIGIN" and
// "https://ORIGIN".
const OriginName = "ORIGIN"

// renameOrigin returns s with origin o renamed (see OriginName).
func RenameOrigin(o auth.Origin, s string) string {
	if o == (auth.Origin{}) || !strings.Contains(s, o.Host) {
		return s
	}
	hostPort := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	for _, form := range []string{o.Scheme + "://" + hostPort, o.String()} {
		s = replaceWhole(s, form, o.Scheme+"://"+OriginName, true)
	}
	return replaceWhole(s, hostPort, OriginName, false)
}

// restoreOrigin returns s with "http://ORIGIN" and "https://ORIGIN" put
// back as origin, the serialised origin of the request replay answers.
func RestoreOrigin(s, origin string) string {
	if !strings.Contains(s, "://"+OriginName) {
		return s
	}
	for _, scheme := range []string{"http", "https"} {
		s = replaceWhole(s, scheme+"://"+OriginName, origin, true)
	}
	return s
}

// replaceWhole replaces old by new in s where old is a whole host (and
// port): not followed by a character of a host name or a port, nor, unless
// anchored (old starts with a scheme), preceded by one of a host name.
func replaceWhole(s, old, new string, anchored bool) string {
	var b strings.Builder
	for last := 0; ; {
		i := strings.Index(s[last:], old)
		if i < 0 {
			if last == 0 {
				return s
			}
			b.WriteString(s[last:])
			return b.String()
		}
		i += last
		end := i + len(old)
		whole := (end == len(s) || !hostByte(s[end]) && !(s[end] == ':' && end+1 < len(s) && isDigit(s[end+1]))) &&
			(anchored || i == 0 || !hostByte(s[i-1]))
		b.WriteString(s[last:i])
		if whole {
			b.WriteString(new)
		} else {
			b.WriteString(old)
		}
		last = end
	}
}

// hostByte reports whether c may be part of a host name or address.
func hostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '.' || c == '-' || c == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// renameOriginHeaders returns h with origin o renamed in every value; h
// itself is not changed.
func RenameOriginHeaders(o auth.Origin, h http.Header) http.Header {
	var out http.Header
	for k, vs := range h {
		for i, v := range vs {
			nv := RenameOrigin(o, v)
			if nv == v {
				continue
			}
			if out == nil {
				out = h.Clone()
			}
			out[k][i] = nv
		}
	}
	if out == nil {
		return h
	}
	return out
}

// renameOriginMessage returns canon, a canonical message, with origin o
// renamed, canonical still (a renamed object key may sort elsewhere).
func RenameOriginMessage(o auth.Origin, canon []byte) []byte {
	if o.Host == "" || !bytes.Contains(canon, []byte(o.Host)) {
		return canon
	}
	renamed := []byte(RenameOrigin(o, string(canon)))
	if out, err := canonjson.Canonical(renamed); err == nil {
		return out
	}
	return renamed
}
