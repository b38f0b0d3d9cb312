// Package record records one session and builds its cassette. Conn keeps
// a message-level session's messages; HTTPRecorder keeps a Streamable
// HTTP session's requests, responses and events below the credential.
// BuildMessages and BuildHTTP turn what they kept into the model:
// redacted, ids renamed, and what only timing decides (a client's
// cancellation, an answer and the list changes around it, a notification
// and the listings around it, the closes of side streams) written the
// same way every time, so that re-recording a session gives the same
// bytes. Package cassette builds its Config from Options.
package record
