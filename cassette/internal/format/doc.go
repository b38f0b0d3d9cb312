// Package format reads and writes cassettes: bytes ↔ lines ↔ the model
// (Cassette, Header, Interaction). It checks each line on its own, bounds
// sizes and depths, and upgrades version 1 to version 2. What lines mean
// together is checked after it, by package cassette. The format itself is
// specified in cassette/FORMAT.md.
package format
