package sandbox

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// repoAt is a repository whose index git status reads: its git
// directory, and its work tree, against which the index's paths lie
// ("" when unknown: a submodule's git directory under modules/, whose
// work tree is found through its .git file).
type repoAt struct {
	gitDir, worktree string
}

// repoOf is the repository of a git directory found.
func repoOf(f foundGitDir) repoAt {
	return repoAt{f.dir, worktreeOf(f)}
}

// worktreeOf is the work tree of the git directory found: where the
// .git leading to it lies, or, for a linked worktree's, where the .git
// file its gitdir names lies.
func worktreeOf(f foundGitDir) string {
	for _, p := range f.aside {
		if filepath.Base(p) == ".git" {
			return filepath.Dir(p)
		}
	}
	if filepath.Base(f.dir) == ".git" {
		return filepath.Dir(f.dir)
	}
	if data, err := readBounded(filepath.Join(f.dir, "gitdir"), 4096); err == nil {
		if p := strings.TrimSpace(string(data)); filepath.IsAbs(p) {
			return filepath.Dir(p)
		}
	}
	return ""
}

// readIndex is what a check read of an index: its gitlinks, and its
// stamp then (settled: a later check may trust it unchanged while the
// stamp is).
type readIndex struct {
	stamp   fileStamp
	settled bool
	links   []string
}

// linked are the git directories the indexes of sources record as
// gitlinks lead to, however deep, in the writable paths: the .git at
// each gitlink's path, and the directory a .git file there names. Each
// source is read once (visited, by its git directory).
func (w *gitWatch) linked(sources []repoAt, writable []string, visited map[string]bool) []foundGitDir {
	var out []foundGitDir
	for _, r := range sources {
		if r.worktree == "" || visited[r.gitDir] {
			continue
		}
		visited[r.gitDir] = true
		for _, rel := range w.gitlinks(r.gitDir) {
			checkout := filepath.Join(r.worktree, filepath.FromSlash(rel))
			if _, err := os.Lstat(filepath.Join(checkout, ".git")); err != nil {
				continue // no checkout there: git status enters nothing
			}
			// Resolved: git's lstat of the path follows the links above
			// it, and a command's link may lead to another writable path
			// (or to the user's repository, known by its real path).
			real, err := filepath.EvalSymlinks(checkout)
			if err != nil {
				continue
			}
			if root := writableHolding(writable, real); root != "" {
				walk := &gitWalk{left: math.MaxInt, onDir: w.watch}
				out = append(out, walk.findAt(root, filepath.Join(real, ".git"))...)
			}
		}
	}
	return out
}

// writableHolding is the writable path p lies in, the innermost, or "".
func writableHolding(writable []string, p string) string {
	root := ""
	for _, w := range writable {
		if workspace.Within(w, p) && len(w) > len(root) {
			root = w
		}
	}
	return root
}

// gitlinks are the gitlinks of the index of the git directory dir, read
// again only when the index changed since a read that settled.
func (w *gitWatch) gitlinks(dir string) []string {
	p := filepath.Join(dir, "index")
	stamp, ok := stampOf(p)
	if !ok {
		delete(w.indexes, p)
		return nil
	}
	if last, ok := w.indexes[p]; ok && last.settled && last.stamp == stamp {
		return last.links
	}
	readAt := time.Now()
	// What a damaged index holds before the damage is kept: git stops
	// there too, and enters nothing.
	links, _ := readGitlinks(p, objectHashSize(dir))
	w.indexes[p] = readIndex{stamp: stamp, settled: stamp.settled(readAt), links: links}
	return links
}

// forgetIndexes drops what was read of the indexes of the git
// directories not visited: those set aside, or gone.
func (w *gitWatch) forgetIndexes(visited map[string]bool) {
	for p := range w.indexes {
		if !visited[filepath.Dir(p)] {
			delete(w.indexes, p)
		}
	}
}
