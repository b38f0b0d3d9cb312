// Package errs holds the fields and the text of the errors users branch on
// that the parts of package cassette build (a mismatch, a recorded error,
// an option that cannot be used). Package cassette declares the errors
// themselves and passes their constructors down in an Errors: no value of
// this package is an error, so none reaches a user unconverted.
package errs
