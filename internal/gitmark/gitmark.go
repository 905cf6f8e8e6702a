// Package gitmark tells a directory that is a git repository's top from
// one that only holds a .git directory.
//
// The sandbox (package sandbox) makes an empty .git, with an empty hooks
// directory and config, in a workspace root that has none, as Gemini CLI
// 0.61's does, so that a sandboxed command cannot plant a repository
// whose hooks the user's git would run later. Git does not take that .git
// for a repository (it has no HEAD); neither may gemini-ls, which looks
// for a repository's top to find GEMINI.md files and to choose git grep.
package gitmark

import (
	"os"
	"path/filepath"
)

// Top reports whether dir is the top of a git work tree: its .git is a
// file (a linked worktree's or a submodule's pointer) or a directory
// holding HEAD, as git itself asks of a repository.
func Top(dir string) bool {
	info, err := os.Lstat(filepath.Join(dir, ".git"))
	switch {
	case err != nil:
		return false
	case !info.IsDir():
		return true
	}
	_, err = os.Lstat(filepath.Join(dir, ".git", "HEAD"))
	return err == nil
}

// Root is the nearest directory from dir upward that is a work tree's
// top (Top), or "" when none is.
func Root(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if Top(d) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
