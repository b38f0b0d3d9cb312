// Package protocol names the words of the Model Context Protocol that this
// module uses in more than one place: the protocol revisions, the statuses
// of a task, and the names of extensions.
//
// Each word is defined here once. Other packages refer to these constants,
// or keep names of their own that are aliases of them
// (client.TaskStatus is protocol.TaskStatus, client.Profile20251125 pins
// Revision20251125).
//
// A revision is named by its date, and dates order as strings: a revision
// is later than another when its string is greater.
//
// The package imports nothing of this module, so that every package of it,
// internal ones included, may import it.
package protocol
