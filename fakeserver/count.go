package fakeserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"

	"github.com/looprig/mcp/internal/atomicfile"
)

// Counts are a fake server's counters, by tool. A tool never called is
// absent.
//
// A round is one run of a tool's handler: a tools/call request whose
// arguments passed validation. It counts before any fault acts, so a
// round that crashes the server, hangs or fails counts as well. An
// execution is a round that did not end by asking the client for input (an
// input-required result, SEP-2322). A call that completes in one round is
// one round and one execution. A call that asks for input once and then
// completes is two rounds and one execution, on either protocol revision.
// Invariant 1 is about executions: a tool is executed to completion at most
// once per call the user made.
//
// While a round runs it counts as an execution; once it ends by asking
// for input, it counts as a round only.
//
// Polls counts the polls of tasks (tasks/get), by the tool the task runs:
// apart from executions, so that a test can see that however often a task
// is polled its tool runs once. It is nil until a task is polled.
type Counts struct {
	Executions map[string]int `json:"executions"`
	Rounds     map[string]int `json:"rounds"`
	Polls      map[string]int `json:"polls,omitempty"`
}

func newCounts() Counts { return Counts{Executions: map[string]int{}, Rounds: map[string]int{}} }

func (c Counts) clone() Counts {
	return Counts{Executions: maps.Clone(c.Executions), Rounds: maps.Clone(c.Rounds), Polls: maps.Clone(c.Polls)}
}

// Counts returns a copy of the counters: tool executions and rounds, by
// tool, as one snapshot.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts.clone()
}

// countRound records the start of a round of tool (a round and, until it
// asks for input, an execution) and rewrites the count file.
func (s *Server) countRound(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts.Rounds[tool]++
	s.counts.Executions[tool]++
	s.saveCounts()
}

// askedForInput records that a round of tool ended by asking for input:
// it was no execution.
func (s *Server) askedForInput(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts.Executions[tool]--; s.counts.Executions[tool] == 0 {
		delete(s.counts.Executions, tool)
	}
	s.saveCounts()
}

// uncount takes back a round of tool that never reached its handler (a
// wrapped server's unknown tool or invalid params).
func (s *Server) uncount(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range []map[string]int{s.counts.Rounds, s.counts.Executions} {
		if m[tool]--; m[tool] <= 0 {
			delete(m, tool)
		}
	}
	s.saveCounts()
}

// saveCounts rewrites the count file, if any. s.mu must be held.
func (s *Server) saveCounts() {
	if s.countFile == "" {
		return
	}
	if err := s.writeCounts(); err != nil {
		s.logger.Error("count file", "error", err)
	}
}

// initCountFile writes the empty counts, if there is a count file.
func (s *Server) initCountFile() error {
	if s.countFile == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeCounts()
}

// writeCounts replaces the count file with the counts. s.mu must be held.
func (s *Server) writeCounts() error {
	b, err := json.Marshal(s.counts) // keys sorted
	if err != nil {
		return err
	}
	return writeFileAtomic(s.countFile, append(b, '\n'))
}

// writeFileAtomic replaces path with data whole (internal/atomicfile).
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("fakeserver: writing %s: %w", path, err)
	}
	return nil
}

// ReadCounts reads a count file written by a fake server (--count-file or
// Options.CountFile). The maps are never nil.
func ReadCounts(path string) (Counts, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Counts{}, fmt.Errorf("fakeserver: count file: %w", err)
	}
	c := newCounts()
	if err := json.Unmarshal(b, &c); err != nil {
		return Counts{}, fmt.Errorf("fakeserver: count file %s: %w", path, err)
	}
	if c.Executions == nil {
		c.Executions = map[string]int{}
	}
	if c.Rounds == nil {
		c.Rounds = map[string]int{}
	}
	return c, nil
}
