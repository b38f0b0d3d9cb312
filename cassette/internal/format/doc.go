// Package format reads and writes cassettes: bytes ↔ lines ↔ the model
// (Cassette, Header, Interaction). It checks each line on its own, bounds
// sizes and depths, and upgrades version 1 to version 2. It reads the
// JSON-RPC message a line holds without decoding it (ScanMessage), and
// holds the JSON trees of messages and the paths into them that a header
// declares and Options name. What lines mean together is checked after
// it, by package cassette. The format is specified in cassette/FORMAT.md.
package format
