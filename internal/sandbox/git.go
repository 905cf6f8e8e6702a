package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gemini-ls/gemini-ls/internal/gitconfig"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The user's own git, run outside the sandbox later (by the user, or by
// the editor every few seconds), runs programs that files in the git
// directory name: the hooks, and the commands the configuration names
// (core.fsmonitor, filters, diff drivers, core.hooksPath). A sandboxed
// command may change none of them, while ordinary git work (objects,
// refs, the index, logs) stays possible. Kept read-only, in each git
// directory in the writable paths:
//
//   - config, hooks/, info/attributes and config.worktree;
//   - commondir, which would move everything above to a directory the
//     command writes; where missing it is made holding "." (the git
//     directory itself, which git reads as if it were absent: an empty
//     one would stop git);
//   - each linked worktree's commondir and config.worktree, and the git
//     directories of the submodules (modules/…);
//   - the files the configuration includes ([include], [includeIf]) and
//     the hooks directory it names (core.hooksPath), the user's global
//     configuration's included, where they lie in the writable paths.
//
// The root's .git directory is mounted over itself, so that it can be
// neither renamed nor removed and replaced; so is every directory between
// a writable path and a file kept read-only (.git/info, .git/worktrees/wt,
// .git/modules/lib/a): renamed, a directory takes the mounts inside it
// along, and a new one made in its place holds whatever the command
// writes (pinParents). A .git file (a worktree's or a submodule's
// pointer) is read-only. A .git, or any path above, that
// links out of the writable paths is followed by nothing: it is read-only
// there already, and nothing is made through it.

// placeholder is what keep makes where a path is missing.
type placeholder int

const (
	none      placeholder = iota // make nothing: the path stays absent
	emptyDir                     // an empty directory
	emptyFile                    // an empty file
	selfDir                      // a commondir naming its own directory
)

// Bounds on what a hostile repository can make the set-up read.
const (
	maxGitConfig   = 1 << 20 // bytes of one configuration file read
	maxIncludes    = 10      // git's own include depth
	maxGitDirs     = 256     // git directories (worktrees, submodules) protected
	maxModuleDepth = 8       // directories deep under modules/
)

// gitProtector gathers the mounts, over one set of writable paths.
type gitProtector struct {
	writable []string // absolute, each as given and resolved
	home     string
	mounts   []mount
	kept     map[string]bool
	gitDirs  map[string]bool
	pinned   map[string]bool // directories bound over themselves
}

func newGitProtector(writable []string, home string) *gitProtector {
	g := &gitProtector{home: home, kept: map[string]bool{}, gitDirs: map[string]bool{}, pinned: map[string]bool{}}
	for _, p := range writable {
		g.writable = append(g.writable, p)
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			g.writable = append(g.writable, real)
		}
	}
	return g
}

// inside says real, a resolved path, lies in a writable path.
func (g *gitProtector) inside(real string) bool {
	for _, w := range g.writable {
		if workspace.Within(w, real) {
			return true
		}
	}
	return false
}

// resolve is p with every link resolved, its missing tail as written;
// ok says it lies in a writable path.
func (g *gitProtector) resolve(p string) (real string, ok bool) {
	p = filepath.Clean(p)
	var tail []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real = filepath.Join(append([]string{r}, tail...)...)
			return real, g.inside(real)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}

// keep makes p read-only, making it as ph says when it is missing. A path
// outside the writable paths, once resolved, is left alone.
func (g *gitProtector) keep(p string, ph placeholder) error {
	real, ok := g.resolve(p)
	if !ok || g.kept[real] {
		return nil
	}
	if _, err := os.Lstat(real); errors.Is(err, fs.ErrNotExist) {
		if ph == none {
			return nil
		}
		err := makePlaceholder(real, ph)
		if errors.Is(err, fs.ErrExist) {
			// Made meanwhile, by another command's set-up: commands
			// run in parallel.
			err = nil
		}
		if cannotCreate(err) {
			// Not even gemini-ls may make it here, so neither may the
			// command, which runs as the same user with fewer rights.
			return nil
		}
		if err != nil {
			return fmt.Errorf("making the %s the sandbox keeps read-only: %w", real, err)
		}
	} else if err != nil {
		return fmt.Errorf("protecting %s in the sandbox: %w", real, err)
	}
	g.kept[real] = true
	g.mounts = append(g.mounts, mount{[]string{"--ro-bind", real, real}, real})
	return nil
}

func makePlaceholder(p string, ph placeholder) error {
	if ph == emptyDir {
		return os.MkdirAll(p, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if ph == selfDir {
		_, err = f.WriteString(".\n")
	}
	return errors.Join(err, f.Close())
}

// cannotCreate says that err is the file system refusing the path for
// any user: no permission, read-only, or a file where a directory would
// be (a worktree's .git).
func cannotCreate(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)
}

// root protects the git directory of a workspace root, making one (an
// empty .git, so that none can be planted) where there is none.
func (g *gitProtector) root(root string) error {
	// At its real path: the --bind below is where bwrap's mount lands
	// and how the mounts are ordered, and a bind at a link's path would
	// be ordered by the link's length.
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	dotgit := filepath.Join(root, ".git")
	if _, err := os.Lstat(dotgit); errors.Is(err, fs.ErrNotExist) {
		err = os.Mkdir(dotgit, 0o755)
		switch {
		case cannotCreate(err):
			return nil
		case err != nil && !errors.Is(err, fs.ErrExist): // or made meanwhile
			return fmt.Errorf("protecting %s in the sandbox: %w", dotgit, err)
		}
	}
	return g.repository(dotgit, root)
}

// repository protects the git directory that dotgit, a .git directory,
// file or link, leads to, whose work tree is worktree.
func (g *gitProtector) repository(dotgit, worktree string) error {
	info, err := os.Lstat(dotgit)
	if err != nil {
		return fmt.Errorf("protecting %s in the sandbox: %w", dotgit, err)
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if real, ok := g.resolve(dotgit); ok {
			return g.gitDir(real, worktree)
		}
		return nil // linkedGitDirs: the note says so
	case info.IsDir():
		// Writable, but a mount point: it cannot be moved aside and
		// replaced (mv .git .old; mkdir -p .git/hooks).
		g.pin(dotgit)
		return g.gitDir(dotgit, worktree)
	default:
		if err := g.keep(dotgit, none); err != nil {
			return err
		}
		if dir, ok := readGitFile(dotgit); ok {
			return g.gitDir(dir, worktree)
		}
		return nil
	}
}

// userRepo protects a git directory that was in the writable paths when
// the sandbox first looked (gitWatch), a repository in a subdirectory
// as a root's: git run outside enters it (the user's cd, the editor's
// scan of nested repositories, git status into a submodule), so what
// its configuration names runs there. One gone since is left alone:
// nothing is made where the user removed a repository.
func (g *gitProtector) userRepo(f foundGitDir) error {
	if _, err := os.Lstat(f.dir); err != nil {
		return nil
	}
	for _, p := range f.aside {
		if filepath.Base(p) != ".git" {
			continue // the git directory a .git file names
		}
		if _, err := os.Lstat(p); err != nil {
			return nil
		}
		return g.repository(p, filepath.Dir(p))
	}
	return g.gitDir(f.dir, "") // a submodule's or worktree's under a .git
}

// pin binds the directory dir over itself, writable: a mount point
// cannot be renamed (EBUSY), so what is mounted inside stays at its path.
func (g *gitProtector) pin(dir string) {
	if !g.pinned[dir] {
		g.pinned[dir] = true
		g.mounts = append(g.mounts, mount{[]string{"--bind", dir, dir}, dir})
	}
}

// pinParents pins every directory between a writable path and a path
// kept read-only: a command could otherwise rename the directory holding
// it (mv .git/worktrees/wt wt.old; mkdir wt), the read-only mounts going
// along, and write a new commondir or config where the old one was. A
// directory that is or lies in a kept one is read-only already.
func (g *gitProtector) pinParents() {
	var bases []string // where the writable mounts land
	for _, w := range g.writable {
		if real, err := filepath.EvalSymlinks(w); err == nil {
			bases = append(bases, real)
		}
	}
	var kept []string
	for _, m := range g.mounts {
		if m.args[0] == "--ro-bind" {
			kept = append(kept, m.dest)
		}
	}
	for _, k := range kept {
		base := ""
		for _, b := range bases {
			if b != k && workspace.Within(b, k) && len(b) > len(base) {
				base = b
			}
		}
		if base == "" {
			continue
		}
		var dirs []string
		for d := filepath.Dir(k); d != base && workspace.Within(base, d); d = filepath.Dir(d) {
			dirs = append(dirs, d)
		}
		for _, d := range dirs {
			readOnly := slices.ContainsFunc(kept, func(k string) bool { return workspace.Within(k, d) })
			if !readOnly {
				g.pin(d)
			}
		}
	}
}

// readGitFile is the git directory a .git file names ("gitdir: DIR").
func readGitFile(p string) (string, bool) {
	data, err := readBounded(p, 4096)
	if err != nil {
		return "", false
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", false
	}
	if dir = strings.TrimSpace(dir); !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(p), dir)
	}
	return dir, true
}

// gitDir protects a git directory whose work tree is worktree ("" when
// unknown: a submodule's, another worktree's), where it lies in the
// writable paths.
func (g *gitProtector) gitDir(dir, worktree string) error {
	real, ok := g.resolve(dir)
	if !ok || g.gitDirs[real] || len(g.gitDirs) >= maxGitDirs {
		return nil
	}
	g.gitDirs[real] = true
	dir = real
	if common, ok := readCommonDir(dir); ok {
		// A linked worktree's: its own files, then the common one. Its
		// gitdir names the worktree, which git worktree remove and prune
		// (run outside) delete or keep by it, and which the sandbox reads
		// back before it lets a session there write this directory
		// (linkedWorktreeGitDir).
		for _, k := range []struct {
			rel string
			ph  placeholder
		}{{"commondir", none}, {"gitdir", none}, {"config.worktree", emptyFile}} {
			if err := g.keep(filepath.Join(dir, k.rel), k.ph); err != nil {
				return err
			}
		}
		if err := g.configRefs(filepath.Join(dir, "config.worktree"), worktree, 0); err != nil {
			return err
		}
		if common != dir {
			return g.gitDir(common, "")
		}
		return nil
	}
	for _, k := range []struct {
		rel string
		ph  placeholder
	}{
		{"config", emptyFile},
		{"hooks", emptyDir},
		{"commondir", selfDir},
		{"config.worktree", emptyFile},
		{"info/attributes", emptyFile},
	} {
		if err := g.keep(filepath.Join(dir, k.rel), k.ph); err != nil {
			return err
		}
	}
	configs := []string{filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree")}
	if worktree != "" {
		// The user's own configuration may include files, or name a
		// hooks directory, in the workspace too.
		configs = append(configs, g.globalConfigs()...)
	}
	for _, c := range configs {
		if err := g.configRefs(c, worktree, 0); err != nil {
			return err
		}
	}
	worktrees, _ := os.ReadDir(filepath.Join(dir, "worktrees"))
	for _, e := range worktrees {
		if e.IsDir() {
			if err := g.gitDir(filepath.Join(dir, "worktrees", e.Name()), ""); err != nil {
				return err
			}
		}
	}
	return g.modules(filepath.Join(dir, "modules"), 0)
}

// readCommonDir is the common directory a linked git directory's
// commondir names; ok is false for a main git directory (no commondir,
// or the "." the sandbox makes).
func readCommonDir(dir string) (string, bool) {
	data, err := readBounded(filepath.Join(dir, "commondir"), 4096)
	if err != nil {
		return "", false
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	if common = filepath.Clean(common); common == dir {
		return "", false
	}
	return common, true
}

// modules protects the submodules' git directories under dir, whose
// names may hold slashes (modules/lib/a): a directory with a HEAD is one.
func (g *gitProtector) modules(dir string, depth int) error {
	if depth > maxModuleDepth {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		var err error
		if _, statErr := os.Lstat(filepath.Join(p, "HEAD")); statErr == nil {
			err = g.gitDir(p, "")
		} else {
			err = g.modules(p, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// globalConfigs are the user's git configuration files.
func (g *gitProtector) globalConfigs() []string {
	out := []string{"/etc/gitconfig"}
	if g.home != "" {
		out = append(out, filepath.Join(g.home, ".gitconfig"), filepath.Join(g.home, ".config", "git", "config"))
	}
	return out
}

// configRefs protects what the configuration file p names: the files it
// includes (and theirs, to git's depth), and its core.hooksPath, relative
// to worktree when relative.
func (g *gitProtector) configRefs(p, worktree string, depth int) error {
	if depth > maxIncludes {
		return nil
	}
	data, err := readBounded(p, maxGitConfig)
	if err != nil {
		return nil // missing or unreadable: git reads nothing from it either
	}
	for _, e := range gitconfig.Parse(data) {
		switch {
		case e.IsInclude():
			inc := expandHome(g.home, e.Value)
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(p), inc)
			}
			if err := g.keep(inc, emptyFile); err != nil {
				return err
			}
			if err := g.configRefs(inc, worktree, depth+1); err != nil {
				return err
			}
		case e.Section == "core" && e.Name == "hookspath" && e.Value != "":
			hooks := expandHome(g.home, e.Value)
			if !filepath.IsAbs(hooks) {
				if worktree == "" {
					continue
				}
				hooks = filepath.Join(worktree, hooks)
			}
			if err := g.keep(hooks, emptyDir); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandHome is p with a leading ~/ the home directory, as git and the
// sandbox's settings read a path.
func expandHome(home, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// readBounded reads at most limit bytes of the regular file p.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(f, limit))
	return buf.Bytes(), err
}

// linkedGitDirs are the roots' .git that link out of the writable paths:
// nothing is set up through them, and git cannot write there.
func (s *Sandbox) linkedGitDirs() []string {
	g := newGitProtector(s.writable(), s.home)
	var out []string
	for _, root := range s.roots() {
		dotgit := filepath.Join(root, ".git")
		if info, err := os.Lstat(dotgit); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, ok := g.resolve(dotgit); !ok {
			out = append(out, dotgit)
		}
	}
	return out
}

// linkedGitNote tells the model why git cannot write a linked .git.
func (s *Sandbox) linkedGitNote() string {
	linked := s.linkedGitDirs()
	if len(linked) == 0 {
		return ""
	}
	return " " + strings.Join(linked, ", ") + " links outside the workspace, so the sandbox keeps it read-only and sets up nothing there: git commands that write (add, commit, checkout, fetch) fail inside it; ask the user to run them."
}
