package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/protected"
)

// projectConfigs sets aside the editors' and tools' project
// configuration (rootConfigs: protected's names, .vscode, .zed, .helix,
// .nvim.lua, .exrc, .dir-locals.el, .envrc…) that a command made in a
// workspace root. One there when the sandbox first looked at the root
// is the user's and kept read-only (governing); one missing could be
// made, and would start a program outside the sandbox the next time the
// user opens the folder (a .vscode/tasks.json task run on folderOpen, a
// language server .helix/languages.toml or .zed/settings.json names) or
// enters it (.envrc), in a folder the user already trusts. So one that
// appears is renamed NAME+MadeSuffix, as gitWatch does a git directory,
// and the user and the model are told; unless it is the user's: open
// in the editor (Config.OpenInEditor: made there, or looked at), or
// written by the agent's edit tools with the user's approval (Approve).
//
// Only in a root: below it (a .envrc or .nvim.lua in a subdirectory, a
// .vscode in a package), these tools read one where the user opens or
// enters that directory, a folder they have not trusted yet, where
// each asks first (VS Code's workspace trust, direnv allow, Neovim's
// trust, Emacs's unsafe local variables), as for a repository just
// cloned; and a clone, a scaffold or an installed package made in the
// sandbox holds such files by the dozen, which setting aside would
// break.
//
// It runs with gitWatch's checks, under its lock: the kernel's word of
// the entries made in a root (watched from the first look) says which
// names to look at, and all are looked at where it cannot tell.
type projectConfigs struct {
	open func(string) bool // Config.OpenInEditor
	seen map[string]bool   // roots looked at
	// users are the paths of the user's. By path, not by what is there:
	// the user's editor may save one by writing a new file in its
	// place. One found gone is no longer theirs (removed outside, a
	// command may make it).
	users map[string]bool
}

func newProjectConfigs() *projectConfigs {
	return &projectConfigs{seen: map[string]bool{}, users: map[string]bool{}}
}

// check sets aside each project configuration in roots, resolved, that
// is not the user's and may have been made since the last check: one
// the kernel told of an entry made in (made), any where it cannot tell
// (lost). At a root's first look, those there are the user's.
func (c *projectConfigs) check(roots []string, made []madeEntry, lost bool) (said []string) {
	for p := range c.users {
		if _, err := os.Lstat(p); err != nil {
			delete(c.users, p)
		}
	}
	for _, root := range roots {
		first := !c.seen[root]
		c.seen[root] = true
		for _, name := range candidateConfigs(root, made, lost || first) {
			p := filepath.Join(root, filepath.FromSlash(name))
			if _, err := os.Lstat(p); err != nil || c.users[p] {
				continue
			}
			if first || c.opened(p) {
				c.users[p] = true
			} else {
				said = append(said, setAsideConfig(p))
			}
		}
	}
	return said
}

// candidateConfigs are the names of rootConfigs to look at in root: all
// of them, or those the entries made lie in.
func candidateConfigs(root string, made []madeEntry, all bool) []string {
	if !all && len(made) == 0 {
		return nil
	}
	names := rootConfigs()
	if all {
		return names
	}
	var out []string
	for _, e := range made {
		rel, err := filepath.Rel(root, e.path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		for _, n := range names {
			if head, _, _ := strings.Cut(n, "/"); head == first && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// maxOpenLooked bounds the files of a configuration directory asked
// about (opened).
const maxOpenLooked = 64

// opened says the editor has p open, or, p a directory, a file in it.
func (c *projectConfigs) opened(p string) bool {
	if c.open == nil {
		return false
	}
	if c.open(p) {
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxOpenLooked)
	return slices.ContainsFunc(names, func(name string) bool { return c.open(filepath.Join(p, name)) })
}

// approve makes the project configuration holding each of paths (a
// file the agent's edit tools wrote, the user approving) the user's.
func (c *projectConfigs) approve(paths []string) {
	for root := range c.seen {
		for _, p := range paths {
			rel, err := filepath.Rel(root, p)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			for _, n := range rootConfigs() {
				if rel != n && !strings.HasPrefix(rel, n+"/") {
					continue
				}
				c.users[filepath.Join(root, filepath.FromSlash(n))] = true
			}
		}
	}
}

// setAsideConfig renames the project configuration p to the first free
// NAME+MadeSuffix[-N], and says so.
func setAsideConfig(p string) string {
	what := protected.New().Why(p)
	to, err := renameAside(p)
	if err != nil {
		return fmt.Sprintf("%s appeared while commands ran in the sandbox (%s), and would run outside it; setting it aside failed (%v): delete it unless you made it", p, what, errors.Unwrap(err))
	}
	return fmt.Sprintf("%s appeared while commands ran in the sandbox (%s), and would run outside it: it was set aside, renamed %s; if you made it, rename it back with it (or a file in it) open in the editor, since one that appears otherwise is set aside again", p, what, to)
}
