package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/transcript"
)

// A step is one thing a picture of a cassette shows, in line order: a
// message (an arrow) or a note. A note says how a stream or the session
// ended, or shows a resumed stream, a failed request, an HTTP status.
type step struct {
	line    int
	number  int              // the message's number; 0 for a note
	from    string           // a message's sender
	kind    string           // "request", "answer", "notification"; "note"
	label   string           // one line saying what it is
	message []byte           // the message, for the HTML view
	over    string           // a note: "both", "client" or "server"
	warn    bool             // a note about something going wrong
	poll    *transcript.Call // a poll repeating its task's last state, or its answer: folded (foldSteps)
}

// steps reads c into the steps of its picture.
func steps(c *cassette.Cassette) []step {
	s := readCassette(c)
	calls := map[int]*transcript.Call{}   // request number → call
	answers := map[int]*transcript.Call{} // answer number → call
	for _, cl := range s.Requests {
		calls[cl.Number] = cl
		if cl.Answered {
			answers[cl.AnswerNumber] = cl
		}
	}
	var out []step
	n := 0
	subs := listens(c)
	repeats := repeatedPolls(s.Requests)
	for i := range c.Interactions {
		in := &c.Interactions[i]
		line := c.Line(i)
		if in.Message != nil {
			n++
			st := step{line: line, number: n, from: from(in), message: in.Message}
			switch cl := calls[n]; {
			case cl != nil:
				st.kind, st.label = "request", cl.Describe()
				if repeats[n] {
					st.poll = cl
				}
				if transcript.IsHandshake(cl.Method) || transcript.IsListing(cl.Method) {
					st.label = cl.Method
				}
			case answers[n] != nil:
				a := answers[n]
				st.kind, st.label = "answer", a.Summary()
				if repeats[a.Number] {
					st.poll = a
				}
				switch {
				case a.Error != nil:
				case a.Method == "initialize" || a.Method == "server/discover":
					st.label = fmt.Sprintf("%s: %s, protocol %s", a.Method, strings.TrimSpace(s.ServerName+" "+s.ServerVersion), c.Header.Protocol)
				case transcript.IsListing(a.Method):
					st.label = a.Method + ": " + a.Summary()
				}
			default:
				st.kind, st.label = "notification", notificationLabel(in.Message)
			}
			out = append(out, st)
			continue
		}
		if note, over, warn := noteOf(in, subs); note != "" {
			out = append(out, step{line: line, kind: "note", label: note, over: over, warn: warn})
		}
	}
	return out
}

func from(in *cassette.Interaction) string {
	switch in.Kind {
	case cassette.KindRequest:
		return cassette.FromClient
	case cassette.KindResponse, cassette.KindEvent:
		return cassette.FromServer
	}
	return in.From
}

// notificationLabel names a notification: its method, and a few words of
// what it says for the usual ones.
func notificationLabel(raw []byte) string {
	w := transcript.Read([]transcript.Message{{Number: 1, From: cassette.FromServer, Raw: raw}}, nil)
	for k := range w.Notifications {
		_, method, _ := strings.Cut(k, " ")
		return method
	}
	return "message"
}

// noteOf says what a line that carries no message shows, if anything.
func noteOf(in *cassette.Interaction, listens map[string]bool) (note, over string, warn bool) {
	h := in.HTTP
	switch {
	case in.Kind == cassette.KindClose && h == nil:
		return "session " + describeEnding(in.Ending, listens), "both", in.Ending.End != cassette.EndClient
	case in.Kind == cassette.KindRequest && h.Headers.Get("Last-Event-ID") != "":
		return fmt.Sprintf("stream %d resumes after event %s (GET Last-Event-ID)", h.Stream, h.Headers.Get("Last-Event-ID")), "client", false
	case in.Kind == cassette.KindRequest && h.Method == "GET":
		return fmt.Sprintf("stream %d: the standalone GET stream opens", h.Stream), "client", false
	case in.Kind == cassette.KindRequest && h.Method == "DELETE":
		return fmt.Sprintf("stream %d: DELETE ends the session", h.Stream), "client", false
	case in.Kind == cassette.KindResponse && h.Status >= 300:
		return fmt.Sprintf("stream %d: HTTP %d", h.Stream, h.Status), "server", h.Status >= 400 && h.Status != 405
	case in.Kind == cassette.KindClose && in.Ending.End == cassette.EndDropped:
		return fmt.Sprintf("stream %d dropped", h.Stream), "both", true
	case in.Kind == cassette.KindClose && in.Ending.End == cassette.EndError:
		return fmt.Sprintf("stream %d: the request failed: %s", h.Stream, describeEnding(in.Ending, listens)), "both", true
	}
	return "", "", false
}

// writeMermaid writes a Mermaid sequence diagram of c: client and server,
// and an arrow per message. The arrows are autonumbered, and the numbers
// are the messages', as faults count them. A task's repeated polls get a
// note that counts them instead. Notes show what else happened.
func writeMermaid(w *bufio.Writer, c *cassette.Cassette) {
	s := readCassette(c)
	w.WriteString("sequenceDiagram\n    autonumber\n")
	fmt.Fprintf(w, "    participant C as %s\n", mermaidText(orName(strings.TrimSpace(s.ClientName+" "+s.ClientVersion), "client")))
	fmt.Fprintf(w, "    participant S as %s\n", mermaidText(orName(strings.TrimSpace(s.ServerName+" "+s.ServerVersion), "server")))
	fmt.Fprintf(w, "    Note over C,S: %s\n", mermaidText(fmt.Sprintf("%s, protocol %s", c.Header.Transport, c.Header.Protocol)))
	folded, runs := foldSteps(steps(c))
	for i, st := range folded {
		a, b := "C", "S"
		if st.from == cassette.FromServer {
			a, b = "S", "C"
		}
		switch st.kind {
		case "polls": // the folded messages keep their numbers: the next arrow is numbered after them
			fmt.Fprintf(w, "    Note over C,S: %s\n    autonumber %d\n", mermaidText(st.label), runs[i].last+1)
		case "request":
			fmt.Fprintf(w, "    %s->>%s: %s\n", a, b, mermaidText(st.label))
		case "answer":
			fmt.Fprintf(w, "    %s-->>%s: %s\n", a, b, mermaidText(st.label))
		case "notification":
			fmt.Fprintf(w, "    %s-)%s: %s\n", a, b, mermaidText(st.label))
		case "note":
			where := map[string]string{"both": "over C,S", "client": "left of C", "server": "right of S"}[st.over]
			fmt.Fprintf(w, "    Note %s: %s\n", where, mermaidText(st.label))
		}
	}
}

func orName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// mermaidText makes s one line Mermaid shows as it is. Characters that
// end a statement, start a comment or make markup are written as Mermaid's
// entity codes. The line is cut to 90 characters.
func mermaidText(s string) string {
	s = transcript.Short(s, 90)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '#':
			b.WriteString("#35;")
		case ';':
			b.WriteString("#59;")
		case '<':
			b.WriteString("#60;")
		case '>':
			b.WriteString("#62;")
		case '%':
			b.WriteString("#37;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
