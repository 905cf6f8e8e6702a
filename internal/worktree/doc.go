// Package worktree gives a session a git worktree of its own, as Gemini
// CLI 0.61's --worktree does (its packages/core worktreeService.ts, in
// the bundle's chunk holding "packages/core/src/services/worktreeService.ts",
// and packages/cli worktreeSetup.ts): .gemini/worktrees/<name> under the
// project's root, on a new branch worktree-<name> made from the
// project's HEAD.
//
// A session owns its worktree: Create hands the caller a *Worktree, and
// only that owner decides, as the session ends, whether it is kept
// (Finish). A session that resumes in a worktree (Of) never removes it:
// its branch may hold an earlier session's commits, which a removal
// would lose.
//
// Invariants:
//   - No package-level mutable state: many sessions may each create and
//     finish their own worktree at once.
//   - Every git call goes through internal/spawn (a Helper) with Gemini
//     CLI's safe git environment (fetchsource.SafeGitEnv): no hooks,
//     fsmonitor or pager of the repository's configuration runs.
//   - A name is refused before git runs when it holds "..", a path
//     separator or a leading "-", or when git would refuse its branch
//     name (CheckName, git check-ref-format): nothing is created outside
//     .gemini/worktrees, and no name reads as an option.
//   - Finish removes a worktree (and its branch) only when git says it
//     holds nothing new: no change in git status --porcelain (untracked
//     files included) and its HEAD still the commit it was made from.
//     Anything else keeps it.
package worktree
