// Package background starts an agent on GitHub Actions from the user's
// machine and brings its work back: it dispatches the repository's
// gemini-ls workflow (written by /setup-github; the runner side is
// package action) with the task, follows the run until it ends, finds
// the pull request of the run's branch gemini/<task>, and fetches that
// branch into a worktree of its own, .gemini/worktrees/<task>, where the
// user reviews it as any agent's work (package fleet). A follow-up is a
// comment naming @gemini-ls on the pull request, which runs the
// workflow again on the same branch.
//
// Invariants:
//   - The user's tree is never written here: the work comes back into a
//     worktree of its own; only the user's yes lands it (fleet, lsp).
//   - The token is the user's: the one the editor gives, else
//     `gh auth token`, else GITHUB_TOKEN or GH_TOKEN. It goes to the
//     API and, for an https origin on github.com, to git's fetch as an
//     extra header through the environment; never to argv, a file or a
//     log line.
//   - A run is recognised by its display title (the workflow's
//     run-name, "gemini-ls: <task>", or "gemini-ls: #<pull request>"
//     for a comment) among the runs that were not there before the
//     dispatch or comment: never by the clock, which GitHub's and the
//     user's need not share.
//   - Every git command runs through internal/worktree, so through the
//     door; `gh` runs through the door as a helper.
package background
