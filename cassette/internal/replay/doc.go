// Package replay plays a cassette back as a live server would: the plan of
// what each line waits on, matching a live message to a recorded line
// (match.go), the scheduler, the decider, the faults, and the players at
// the message level (play_conn.go) and the HTTP level (play_http.go).
// It plans from a cassette format.Analyse has checked (NewPlayer takes that
// analysis) and does not check it again. Package cassette builds its Config
// from Options.
package replay
