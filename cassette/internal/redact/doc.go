// Package redact takes out of a recording what must not be written or
// would differ on every run: secrets become numbered placeholders
// ("REDACTED-<n>", by first appearance), the server's origin becomes
// "ORIGIN", and the session ids, event ids, request states and task ids a
// server makes up become "session-<n>", "s<n>_…", "state-<n>" and
// "task-<n>". Replay applies the same rules to live messages before it
// matches them.
package redact
