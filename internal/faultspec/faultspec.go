// Package faultspec is the one grammar and parser of a fault's text form.
// Package cassette's replay faults and package fakeserver's scripted
// faults are written in it, on the command line, in scripts and in Go:
//
//	KIND[@TARGET][:ARG]
//
// KIND names the fault. TARGET names what it acts on: a tool or a skill
// of the fake, or a message or request of a cassette. ARG is the fault's
// argument: a duration, a number, a word or free text. Each consumer
// declares its kinds in a table ([Grammar]): whether each takes a TARGET
// and an ARG, and of what form. The kinds and their forms are listed in
// FAULTS.md at the repository's root.
//
// KIND=TARGET, the fake's spelling before 0.2.0, is read as KIND@TARGET.
// A leaf, it imports no package of the module above internal/: each
// consumer names the sentinel its errors wrap (Grammar.Class).
//
// Where ARG begins depends on TARGET's form. After a name (a tool, a
// skill), ARG begins at the first ':', so free text may hold ':'. After a
// request, whose name may be a URI, ARG begins at the last ':'.
package faultspec

import (
	"time"

	"github.com/looprig/mcp/internal/safetext"
)

// A Need says whether a kind takes a part of the text form.
type Need int

// The needs.
const (
	None     Need = iota // the part is refused
	Optional             // the part may be left out
	Required             // the part must be written
)

// A TargetForm is what a TARGET names.
type TargetForm int

// The target forms.
const (
	// Name is a tool's or a skill's name. It holds no ':'.
	Name TargetForm = iota
	// Request is a message number N, from 1, or a request
	// METHOD[=NAME][#NTH], NTH from 1.
	Request
)

// A Target says whether a kind takes a TARGET, and of what form.
type Target struct {
	Need Need
	Form TargetForm
	Name string // its placeholder in the document: TOOL, SKILL, TARGET
}

// An ArgForm is the form of an ARG.
type ArgForm int

// The argument forms.
const (
	Duration ArgForm = iota // a positive Go duration: 200ms, 1s
	Number                  // a decimal integer within Arg.In
	Text                    // any text, ':' included
	Word                    // Arg.Name itself, written as it is (setsid)
)

// A Range is the integers from Min to Max, both included.
type Range struct{ Min, Max int }

// An Arg says whether a kind takes an ARG, and of what form.
type Arg struct {
	Need    Need
	Form    ArgForm
	Name    string  // its placeholder: DURATION, COUNT, BYTES, STATUS…; for Word, the word
	In      []Range // Number: the values allowed
	Default string  // what it means when left out, for the document
}

// A Kind is one kind of fault: its name and the parts it takes.
type Kind struct {
	Name   string
	Target Target
	Arg    Arg
	Where  string // where it acts, for FAULTS.md; empty when the consumer works it out
}

// A Grammar is one consumer's table of kinds.
type Grammar struct {
	Owner string // the consumer's package, which prefixes its errors
	Class error  // what its errors wrap: transport.ErrBadFault
	Kinds []Kind
}

// kind returns the kind named name.
func (g *Grammar) kind(name string) (Kind, bool) {
	for _, k := range g.Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// A Spec is a fault read from its text form.
type Spec struct {
	Kind   string
	Target string // as written; empty for none
	Arg    string // as written; empty for none
	HasArg bool   // an ARG was written, empty or not

	// A Request target: a message number, or a request by Method, Name
	// (empty for any) and Nth (from 1; zero means 1).
	Message      int
	Method, Name string
	Nth          int

	Duration time.Duration // a Duration ARG
	Number   int           // a Number ARG
	Old      bool          // written KIND=TARGET
}

// An Error is a fault that does not read. It wraps its grammar's Class.
type Error struct {
	Owner string // the consumer's package
	Text  string // the fault as written, or as a value's text form
	Why   string // what is wrong
	Class error  // the grammar's Class
}

func (e *Error) Error() string {
	return e.Owner + `: fault "` + safetext.Line(e.Text) + `": ` + e.Class.Error() + ": " + safetext.Line(e.Why)
}

// Unwrap returns the grammar's Class.
func (e *Error) Unwrap() error { return e.Class }

// Usage returns the kind's text form with placeholders, as the document
// shows it: delay@TOOL:DURATION, redirect[@TOOL][:STATUS].
func (k Kind) Usage() string {
	s := k.Name
	switch k.Target.Need {
	case Optional:
		s += "[@" + k.Target.Name + "]"
	case Required:
		s += "@" + k.Target.Name
	}
	switch k.Arg.Need {
	case Optional:
		s += "[:" + k.Arg.Name + "]"
	case Required:
		s += ":" + k.Arg.Name
	}
	return s
}
