package protocol

// The protocol revisions this module speaks, newest first.
const (
	// Revision20260728 is the current revision: server/discover,
	// per-request _meta, no session.
	Revision20260728 = "2026-07-28"
	// Revision20251125 has sessions, initialize and Last-Event-ID
	// resumption.
	Revision20251125 = "2025-11-25"
	// Revision20250618 is the revision of June 2025.
	Revision20250618 = "2025-06-18"
	// Revision20250326 is the first revision of Streamable HTTP.
	Revision20250326 = "2025-03-26"
	// Revision20241105 is the revision of the legacy HTTP+SSE transport.
	Revision20241105 = "2024-11-05"
)

// Revisions returns the revisions this module speaks, newest first.
func Revisions() []string {
	return []string{Revision20260728, Revision20251125, Revision20250618, Revision20250326, Revision20241105}
}

// The names of the extensions this module implements, as declared in
// capabilities' extensions.
const (
	// TasksExtension is the tasks extension (SEP-2663).
	TasksExtension = "io.modelcontextprotocol/tasks"
	// SkillsExtension is the skills extension (SEP-2640).
	SkillsExtension = "io.modelcontextprotocol/skills"
)

// A TaskStatus is the status of a task (SEP-2663).
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether a task with status s will not change again.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Known reports whether s is one of the statuses above.
func (s TaskStatus) Known() bool {
	return s == TaskWorking || s == TaskInputRequired || s.Terminal()
}
