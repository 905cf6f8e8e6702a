// Package fleet keeps the agents of one server: sessions that each run
// in a git worktree of their own (internal/worktree), side by side, and
// what the user does with their work.
//
// An agent's edits land in its worktree at once: the worktree is the
// agent's. Its work reaches the user's own tree only through the user's
// yes: landed as one edit the user previews (Merge gives its text, file
// by file), or merged by git when the user asks for that.
//
// Invariants:
//   - One Fleet per server connection, no package-level state: each
//     agent is its worktree's only session in the fleet, keyed by the
//     worktree's path.
//   - Every change of an agent goes through Fleet.Update, which tells
//     the front end (Config.Changed) once per change, outside the lock.
//   - Merge never puts the agent's text over the user's: a hunk of the
//     agent's whose base lines the user changed too, or touched, is a
//     Conflict with both sides, and the user's text stands.
package fleet
