// Package redact takes out of a recording what must not be written or
// would differ on every run: secrets become numbered placeholders
// ("REDACTED-<n>", by first appearance), the server's origin becomes
// "ORIGIN", and the request states and task ids a server makes up become
// "state-<n>" and "task-<n>". Replay applies the same rules to live
// messages before it matches them. It also holds the JSON trees and paths
// that RedactPaths and IgnorePaths name.
package redact
