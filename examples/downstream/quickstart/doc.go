// Package quickstart holds the README's quick starts as code that compiles
// and runs: scripts/docs/run-examples.mjs checks that every line of each
// README snippet is in these files (or in the file the snippet names), and
// runs their tests with the rest of this module.
package quickstart
