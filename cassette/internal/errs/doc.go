// Package errs holds the errors the parts of package cassette return and
// its users branch on (a mismatch, requests never made, a recorded error,
// an option that cannot be used). Package cassette aliases them, and
// documents them for users.
package errs
