// Package fetchsource brings what a user names as the source of an
// extension or a skill onto this machine, as Gemini CLI 0.61 does for
// `gemini extensions install` and `gemini skills install`: a directory is
// copied (CopyDir), a git repository cloned with the git binary (Clone),
// and a clone is asked what its remote has now (RemoteHead, Head).
//
// Invariants:
//   - git runs with Gemini CLI's safe environment (SafeGitEnv): no global
//     or system git configuration, no credential helper, hooks, fsmonitor,
//     ssh command, pager or editor, so a repository or the user's
//     configuration cannot make a clone run a program of its choosing.
//   - Every git command takes the caller's context: cancelling it kills
//     git. Its errors carry git's own last line of stderr.
//   - CopyDir never follows a symbolic link out of the source: a link is
//     copied as a link, as Node's fs.cp copies it; what it copies is left
//     writable by its owner, as Gemini CLI leaves an installed copy.
package fetchsource
