// Package record writes what only timing decides in a recording the same
// way every time, so that re-recording a session gives the same bytes: a
// client's cancellation, an answer and the list changes around it, a
// notification and the listings around it, the closes of side streams.
// It runs on the model after redaction has renamed what servers make up.
package record
