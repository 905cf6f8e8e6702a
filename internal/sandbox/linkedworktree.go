package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// A workspace root may be a linked git worktree (an agent's, under
// .gemini/worktrees, or one the user made with git worktree add), whose
// .git is a file naming its own git directory in the main repository's:
// <main>/.git/worktrees/<name>. git writes that directory for work in
// the worktree (its index, HEAD, ORIG_HEAD, logs/HEAD, a rebase's
// state), so the sandbox makes it writable too, its files through which
// git could be pointed elsewhere (commondir, gitdir, config.worktree)
// kept read-only as in any git directory (gitProtector.gitDir). The rest
// of the main repository stays read-only: its configuration and hooks,
// which the user's git runs, and its objects and refs, which every
// worktree shares. A loose object can be replaced in place by whoever
// may write its directory (git does not check an object's hash as it
// reads it), and a branch's ref cannot be made writable alone (git
// writes it through a .lock beside it, in refs/heads), so a session in
// a worktree cannot commit, add, stash, branch, tag or fetch: its work
// is its files, which the user reviews and lands from outside.

// linkedWorktreeGitDir is the git directory of the linked worktree root
// is, resolved, when root's .git is a file naming one laid out as git
// makes them: <common>/worktrees/<name>, its commondir naming <common>
// and its gitdir naming root's .git back. The check back matters: a
// .git file is the worktree's to write (by the agent's edit tools), and
// one naming any other directory would make that directory writable.
func linkedWorktreeGitDir(root string) (string, bool) {
	dotgit := filepath.Join(root, ".git")
	if info, err := os.Lstat(dotgit); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	named, ok := readGitFile(dotgit)
	if !ok {
		return "", false
	}
	dir, err := filepath.EvalSymlinks(named)
	if err != nil || filepath.Base(filepath.Dir(dir)) != "worktrees" {
		return "", false
	}
	common, ok := readCommonDir(dir)
	if !ok || !samePath(common, filepath.Dir(filepath.Dir(dir))) {
		return "", false
	}
	data, err := readBounded(filepath.Join(dir, "gitdir"), 4096)
	if err != nil {
		return "", false
	}
	back := strings.TrimSpace(string(data))
	if !filepath.IsAbs(back) {
		back = filepath.Join(dir, back) // worktree.useRelativePaths
	}
	if !samePath(back, dotgit) {
		return "", false
	}
	return dir, true
}

// samePath says a and b, both existing, are one file, links followed.
func samePath(a, b string) bool {
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		return false
	}
	rb, err := filepath.EvalSymlinks(b)
	return err == nil && ra == rb
}

// linkedWorktreeGitDirs are the git directories of the roots that are
// linked worktrees (linkedWorktreeGitDir).
func (s *Sandbox) linkedWorktreeGitDirs() []string {
	var out []string
	for _, root := range s.roots() {
		if dir, ok := linkedWorktreeGitDir(root); ok {
			out = append(out, dir)
		}
	}
	return out
}

// linkedWorktreeNote tells the model, in a root that is a linked
// worktree, which git commands the sandbox refuses there and why.
func (s *Sandbox) linkedWorktreeNote() string {
	var in []string
	for _, root := range s.roots() {
		if _, ok := linkedWorktreeGitDir(root); ok {
			in = append(in, root)
		}
	}
	if len(in) == 0 {
		return ""
	}
	return " " + strings.Join(in, ", ") + " is a git worktree: git may write its own index and HEAD, but the repository's objects, branches and configuration are shared with the main checkout and read-only here, so git add, commit, stash, branch, tag, merge and fetch fail; leave your work in the files, where the user reviews and lands it."
}
