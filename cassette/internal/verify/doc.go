// Package verify compares two sessions by their messages (Compare), and
// drives a live server with a cassette's client messages, recording it,
// to report where it drifted (Run). Both return transcript drifts: package
// cassette turns them into its Drift and DriftError, and builds Run's
// Config from Options.
package verify
