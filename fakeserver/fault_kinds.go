package fakeserver

import (
	"github.com/looprig/mcp/internal/faultspec"
	"github.com/looprig/mcp/transport"
)

// The placeholders of the fake's arguments. Each names the Fault field its
// ARG fills (Fault.setArg, Fault.arg).
const (
	argDuration = "DURATION" // Delay
	argBytes    = "BYTES"    // Bytes
	argCount    = "COUNT"    // Count
	argCode     = "CODE"     // Code
	argEvents   = "EVENTS"   // Events
	argStatus   = "STATUS"   // Status
	argMessage  = "MESSAGE"  // Message
	argSetsid   = "setsid"   // Setsid
)

// The fake's targets and arguments, as the table below uses them.
var (
	toolTarget     = faultspec.Target{Need: faultspec.Required, Form: faultspec.Name, Name: "TOOL"}
	someToolTarget = faultspec.Target{Need: faultspec.Optional, Form: faultspec.Name, Name: "TOOL"}
	skillTarget    = faultspec.Target{Need: faultspec.Required, Form: faultspec.Name, Name: "SKILL"}

	durationArg = faultspec.Arg{Need: faultspec.Required, Form: faultspec.Duration, Name: argDuration}
	bytesArg    = faultspec.Arg{Need: faultspec.Required, Form: faultspec.Number, Name: argBytes, In: faultspec.From(1)}
	countArg    = faultspec.Arg{Need: faultspec.Required, Form: faultspec.Number, Name: argCount, In: faultspec.From(1)}
	eventsArg   = faultspec.Arg{Need: faultspec.Required, Form: faultspec.Number, Name: argEvents, In: faultspec.From(0)}
	codeArg     = faultspec.Arg{Need: faultspec.Optional, Form: faultspec.Number, Name: argCode, In: []faultspec.Range{{Min: 0, Max: 255}}, Default: "1"}
	setsidArg   = faultspec.Arg{Need: faultspec.Optional, Form: faultspec.Word, Name: argSetsid}
	// serverStatusArg is server-error's: a server error.
	serverStatusArg = faultspec.Arg{Need: faultspec.Optional, Form: faultspec.Number, Name: argStatus, In: []faultspec.Range{{Min: 500, Max: 599}}, Default: "500"}
	// redirectStatusArg is redirect's: 301, 302, 303, 307 or 308.
	redirectStatusArg = faultspec.Arg{Need: faultspec.Optional, Form: faultspec.Number, Name: argStatus,
		In: []faultspec.Range{{Min: 301, Max: 303}, {Min: 307, Max: 308}}, Default: "307"}
)

// messageArg is an optional MESSAGE whose default is def.
func messageArg(def string) faultspec.Arg {
	return faultspec.Arg{Need: faultspec.Optional, Form: faultspec.Text, Name: argMessage, Default: `"` + def + `"`}
}

// A kindSpec is one kind of the fake's: the parts its text form takes, and
// whether it needs a child process (stdio) or HTTP (see [Fault.ActsOn]).
type kindSpec struct {
	spec  faultspec.Kind
	stdio bool
	http  bool
}

// kindTable is every kind of the fake, in FAULTS.md's order.
var kindTable = []kindSpec{
	{spec: faultspec.Kind{Name: string(FaultDelay), Target: toolTarget, Arg: durationArg}},
	{spec: faultspec.Kind{Name: string(FaultHang), Target: toolTarget}},
	{spec: faultspec.Kind{Name: string(FaultError), Target: toolTarget, Arg: messageArg("scripted failure")}},
	{spec: faultspec.Kind{Name: string(FaultPanic), Target: toolTarget, Arg: messageArg("scripted panic")}},
	{spec: faultspec.Kind{Name: string(FaultOversize), Target: toolTarget, Arg: bytesArg}},
	{spec: faultspec.Kind{Name: string(FaultFloodNotifications), Target: toolTarget, Arg: countArg}},
	{spec: faultspec.Kind{Name: string(FaultEnv)}},
	{spec: faultspec.Kind{Name: string(FaultCrash), Target: toolTarget, Arg: codeArg}, stdio: true},
	{spec: faultspec.Kind{Name: string(FaultMalformed), Target: toolTarget}, stdio: true},
	{spec: faultspec.Kind{Name: string(FaultFloodStderr), Target: someToolTarget, Arg: bytesArg}, stdio: true},
	{spec: faultspec.Kind{Name: string(FaultIgnoreEOF)}, stdio: true},
	{spec: faultspec.Kind{Name: string(FaultIgnoreSIGTERM)}, stdio: true},
	{spec: faultspec.Kind{Name: string(FaultGrandchild), Arg: setsidArg}, stdio: true},

	{spec: faultspec.Kind{Name: string(FaultDrop), Target: toolTarget, Arg: eventsArg}, http: true},
	{spec: faultspec.Kind{Name: string(FaultDropNoID), Target: toolTarget, Arg: eventsArg}, http: true},
	{spec: faultspec.Kind{Name: string(FaultDelayHeaders), Target: someToolTarget, Arg: durationArg}, http: true},
	{spec: faultspec.Kind{Name: string(FaultUnauthorized), Target: someToolTarget}, http: true},
	{spec: faultspec.Kind{Name: string(FaultForbidden), Target: someToolTarget}, http: true},
	{spec: faultspec.Kind{Name: string(FaultGone), Target: toolTarget}, http: true},
	{spec: faultspec.Kind{Name: string(FaultServerError), Target: someToolTarget, Arg: serverStatusArg}, http: true},
	{spec: faultspec.Kind{Name: string(FaultNoGet)}, http: true},
	{spec: faultspec.Kind{Name: string(FaultRedirect), Target: someToolTarget, Arg: redirectStatusArg}, http: true},
	{spec: faultspec.Kind{Name: string(FaultForeignEndpoint)}, http: true},

	{spec: faultspec.Kind{Name: string(FaultTask), Target: toolTarget}},
	{spec: faultspec.Kind{Name: string(FaultTaskRequired), Target: toolTarget}},
	{spec: faultspec.Kind{Name: string(FaultTaskFail), Target: toolTarget, Arg: messageArg("scripted task failure")}},
	{spec: faultspec.Kind{Name: string(FaultTaskInput), Target: toolTarget}},
	{spec: faultspec.Kind{Name: string(FaultTaskExpire), Arg: durationArg}},
	{spec: faultspec.Kind{Name: string(FaultTaskPollError), Target: toolTarget, Arg: countArg}},

	{spec: faultspec.Kind{Name: string(FaultSkillDigest), Target: skillTarget}},
	{spec: faultspec.Kind{Name: string(FaultSkillSize), Target: skillTarget}},
	{spec: faultspec.Kind{Name: string(FaultSkillFrontmatter), Target: skillTarget}},
	{spec: faultspec.Kind{Name: string(FaultSkillChanged), Target: skillTarget}},
}

// kinds is kindTable by kind; grammar is its text form's.
var kinds, grammar = index(kindTable)

func index(table []kindSpec) (map[FaultKind]kindSpec, *faultspec.Grammar) {
	m := make(map[FaultKind]kindSpec, len(table))
	g := &faultspec.Grammar{Owner: "fakeserver", Class: transport.ErrBadFault}
	for _, k := range table {
		m[FaultKind(k.spec.Name)] = k
		g.Kinds = append(g.Kinds, k.spec)
	}
	return m, g
}
