// Package sandboxtrail keeps the trail of where sandboxed commands could
// write, and when, so that a folder's own configuration a sandboxed
// command wrote is not obeyed by a later session without the user's yes.
//
// A sandbox keeps the workspace roots' .gemini read-only and moves aside
// a .env its commands make where the next start at those roots would
// read one. Below a root it cannot: a command may make
// packages/app/.gemini/settings.json naming an MCP server or a hook,
// packages/app/.agents/mcp_config.json naming one, or
// packages/app/.env saying GEMINI_SANDBOX=false, and a session opened
// later in packages/app (trusted, being inside a trusted folder) would
// run them outside any sandbox. Watching for such files as they are made
// would take a walk of the tree per command. The trail takes the other
// way: it records the time spans (Windows) in which a sandbox's
// commands could write below its writable paths, and a folder's trust is
// then decided with its configuration's change times in view (Changed:
// what internal/configfiles declares of a folder, configfiles.Folder):
// a file changed in such a span, not accepted since, makes the folder
// one to ask about again.
//
// Invariants:
//
//   - A window is on disk before its sandbox runs a command (Open), and
//     stays until it is closed (Close, once the sandbox's commands
//     ended) or its process is gone: a live window's record is held
//     (internal/heldfile), so a reader tells one whose process died, and
//     closes it at the time it looks, later than any write its
//     commands made. A reader never sees fewer windows than were opened
//     (it lists the live records before it reads the closed ones; a
//     window is appended to the closed ones before its record goes).
//   - The change time is the file's status change time (ctime on Unix,
//     ChangeTime on Windows), which a write, a rename into place and a
//     link all set and which no unprivileged process sets back, unlike
//     the modification time (touch -d). Elsewhere the modification time
//     is all there is.
//   - Merging closed windows (compaction, when the file grows) only
//     widens them: what was in a window stays in one.
//   - Files in a window's roots' .gemini are not suspect: the sandbox
//     kept them read-only, and the user edits them there while commands
//     run.
//   - The user's yes for a folder (Accept) covers what its configuration
//     holds at that moment, not what is changed in it after.
//   - A trail that cannot be read is reported, never taken as empty.
//
// The trail lives in gemini-ls's state directory, which no sandboxed
// command can write: live/ holds the live windows' records, closed.jsonl
// the closed windows, one JSON object a line, appended under
// internal/sharedlock's lock, and accepted/ a file per folder the user
// trusted again.
package sandboxtrail
