// Package vcrext carries go-vcr hooks and storage from package
// cassette/vcr into a cassette.Options, whose exported fields hold none of
// go-vcr's types.
package vcrext

import (
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Ext is the go-vcr part of a cassette's options.
type Ext struct {
	Hooks []*recorder.Hook
	FS    vcr.FS
}

// Set stores e in o, a *cassette.Options. Package cassette installs it
// when it is initialised, before package cassette/vcr (which imports it)
// can call it.
var Set func(o any, e Ext)
