package main

import (
	"bufio"
	"fmt"
	"html"
	"strings"

	"github.com/looprig/mcp/cassette"
	"github.com/looprig/mcp/internal/jsondiff"
)

// writeHTML writes one self-contained HTML page of c. No request leaves
// it: its Content-Security-Policy allows nothing but its own inline style
// and script. The page shows the session's header, then a timeline, client
// on the left and server on the right. The timeline has one entry per
// message, numbered as faults count them, that expands to the indented
// message. It has notes for what else happened. The page's address may
// name a message (#m12) to open it.
func writeHTML(w *bufio.Writer, c *cassette.Cassette) {
	shown, total := firstMessages(c, htmlMessages)
	s := readCassette(shown)
	esc := html.EscapeString
	title := "mcprig: " + c.File
	fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>%s</style>
</head>
<body>
<header>
<h1>%s</h1>
<dl>
<dt>transport</dt><dd>%s</dd>
<dt>protocol</dt><dd>%s</dd>
<dt>server</dt><dd>%s</dd>
<dt>client</dt><dd>%s</dd>
<dt>messages</dt><dd>%d</dd>
</dl>
<p class="tools"><button type="button" id="open-all">expand all</button> <button type="button" id="close-all">collapse all</button></p>
</header>
<main id="timeline">
<div class="lanes"><div class="lane client">client</div><div class="lane server">server</div></div>
`, esc(title), pageStyle, esc(c.File), esc(c.Header.Transport), esc(c.Header.Protocol),
		esc(strings.TrimSpace(s.ServerName+" "+s.ServerVersion)), esc(orName(strings.TrimSpace(s.ClientName+" "+s.ClientVersion), "unknown")), total)
	if s.Messages < total {
		fmt.Fprintf(w, "<p class=\"cut\">This page shows the first %d of the %d messages (line %d and before); <code>mcprig inspect</code> in text summarises them all.</p>\n",
			s.Messages, total, len(shown.Interactions)+1)
	}
	all := steps(shown)
	folded, runs := foldSteps(all)
	k := 0 // the next of all to write
	for i, st := range folded {
		if run := runs[i]; run != nil {
			// The repeated polls keep their entries (#m17 opens one),
			// inside one group that says how many there are.
			fmt.Fprintf(w, "<details class=\"polls\" data-line=\"%d\"><summary>%s</summary>\n", st.line, esc(st.label))
			for ; k < len(all) && all[k].poll != nil; k++ {
				writeHTMLStep(w, &all[k])
			}
			w.WriteString("</details>\n")
			continue
		}
		writeHTMLStep(w, &all[k])
		k++
	}
	fmt.Fprintf(w, "</main>\n<script>%s</script>\n</body>\n</html>\n", pageScript)
}

// htmlMessages bounds the messages a page shows: a browser opens a page of
// 10,000 messages, and the page and its making stay near the cassette's
// size.
var htmlMessages = 10000

// firstMessages returns c cut after its nth message (c itself when it
// holds no more) and the number of messages c holds.
func firstMessages(c *cassette.Cassette, n int) (*cassette.Cassette, int) {
	seen, cut := 0, len(c.Interactions)
	for i := range c.Interactions {
		if c.Interactions[i].Message == nil {
			continue
		}
		if seen++; seen == n+1 {
			cut = i
		}
	}
	if cut == len(c.Interactions) {
		return c, seen
	}
	short := *c
	short.Interactions = c.Interactions[:cut]
	return &short, seen
}

// writeHTMLStep writes the page's entry of st: a note, or a message that
// expands.
func writeHTMLStep(w *bufio.Writer, st *step) {
	esc := html.EscapeString
	if st.kind == "note" {
		cls := "note " + st.over
		if st.warn {
			cls += " warn"
		}
		fmt.Fprintf(w, "<div class=\"%s\" data-line=\"%d\"><span class=\"line\">line %d</span> %s</div>\n", cls, st.line, st.line, esc(st.label))
		return
	}
	arrow := "→"
	if st.from == cassette.FromServer {
		arrow = "←"
	}
	fmt.Fprintf(w, "<details class=\"msg %s %s\" id=\"m%d\" data-line=\"%d\"><summary><span class=\"n\">#%d</span> <span class=\"arrow\">%s</span> <span class=\"kind\">%s</span> <span class=\"label\">%s</span> <span class=\"line\">line %d</span></summary><pre>%s</pre></details>\n",
		st.from, st.kind, st.number, st.line, st.number, arrow, st.kind, esc(st.label), st.line, esc(jsondiff.IndentBytes(st.message)))
}

const pageStyle = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f7f9; }
header { padding: 16px 24px; background: #fff; border-bottom: 1px solid #d8dce3; }
h1 { font-size: 18px; margin: 0 0 8px; word-break: break-all; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dt { color: #6b7280; } dd { margin: 0; font-family: ui-monospace, monospace; }
.tools { margin: 8px 0 0; }
button { font: inherit; padding: 2px 10px; border: 1px solid #c4c9d2; border-radius: 4px; background: #f3f4f6; cursor: pointer; }
main { padding: 12px 24px 40px; max-width: 1100px; }
.lanes { display: grid; grid-template-columns: 1fr 1fr; font-weight: 600; color: #6b7280; margin-bottom: 6px; }
.lane.server { text-align: right; }
.msg { width: 72%; margin: 4px 0; border-radius: 6px; border: 1px solid #c9d7ef; background: #fff; }
.msg.client { margin-right: auto; border-left: 4px solid #2f6fdf; }
.msg.server { margin-left: auto; border-right: 4px solid #1f9d6b; }
.msg.notification { opacity: .85; border-style: dashed; }
.msg summary { cursor: pointer; padding: 4px 8px; list-style: none; display: flex; gap: 6px; align-items: baseline; }
.msg summary::-webkit-details-marker { display: none; }
.msg[open] summary { border-bottom: 1px solid #e5e7eb; background: #f8fafc; }
.n { font-family: ui-monospace, monospace; color: #6b7280; min-width: 3em; }
.kind { font-size: 11px; text-transform: uppercase; color: #6b7280; }
.label { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.line { font-size: 11px; color: #9ca3af; white-space: nowrap; }
pre { margin: 0; padding: 8px 12px; overflow: auto; max-height: 420px; font: 12px/1.35 ui-monospace, monospace; }
.note { text-align: center; margin: 6px auto; width: 60%; padding: 3px 8px; font-size: 12px; color: #4b5563; background: #eef0f4; border-radius: 10px; }
.note.client { margin-left: 0; text-align: left; } .note.server { margin-right: 0; text-align: right; }
.note.warn { background: #fde8e8; color: #9b1c1c; }
.cut { margin: 8px 0; padding: 6px 10px; background: #fff7e0; border: 1px solid #f0d58c; border-radius: 6px; }
.polls { margin: 6px auto; } .polls > summary { text-align: center; width: 60%; margin: 0 auto; padding: 3px 8px; font-size: 12px; color: #4b5563; background: #eef0f4; border-radius: 10px; cursor: pointer; }
`

const pageScript = `
(function () {
  var all = document.querySelectorAll("details.msg");
  function open(m) {
    var d = document.getElementById(m);
    if (!d) { return; }
    for (var p = d; p; p = p.parentElement) { if (p.tagName === "DETAILS") { p.open = true; } }
    var r = d.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) { d.scrollIntoView({block: "center"}); }
  }
  if (location.hash.length > 1) { open(location.hash.slice(1)); }
  window.addEventListener("hashchange", function () { open(location.hash.slice(1)); });
  document.getElementById("open-all").onclick = function () { all.forEach(function (d) { d.open = true; }); };
  document.getElementById("close-all").onclick = function () { all.forEach(function (d) { d.open = false; }); };
  document.body.setAttribute("data-messages", String(all.length));
})();
`
