// Package verify compares two sessions by their messages (Compare), and
// drives a live server with a cassette's client messages, recording it,
// to report where it drifted (Run). Drift, DriftError and Severity are
// aliased by package cassette, which builds Run's Config from Options.
package verify
