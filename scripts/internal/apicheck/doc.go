// Command apicheck holds this module's version to its tag policy. It reads
// the report golang.org/x/exp/cmd/apidiff gives of the public API against
// the last release, prints the changes grouped by package, incompatible
// first, and exits 1 when the version does not follow them:
//
//   - an incompatible change needs the next minor version on v0 (v0.1.3 →
//     v0.2.0), the next major from v1 on;
//   - a compatible change needs a version past the release (a patch on v0;
//     from v1 on, an addition needs the next minor);
//   - a version past the release needs its section in CHANGELOG.md
//     ("## [0.2.0] - Unreleased", or with the release's date);
//   - each incompatible change is mentioned in that section's "### Migration"
//     subsection: one line names its package and each identifier of its
//     name ("(*Server).HTTPHandler" of server: server, Server, HTTPHandler);
//   - a release (a tag at HEAD) is the version it names, and its section
//     is dated.
//
// scripts/apicheck runs apidiff and then this command; run it from there:
//
//	go run ./scripts/internal/apicheck -base v0.1.0 -report REPORT [-changelog CHANGELOG.md] [-version V] [-head-tag T]
//
// The version defaults to [client.Version].
package main
