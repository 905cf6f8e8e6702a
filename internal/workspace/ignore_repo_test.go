package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/gitignore/gitignoretest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// repoKind is how the repository above a root is made.
type repoKind int

const (
	plainRepo    repoKind = iota // the root below the top of a repository's own work tree
	realWorktree                 // below the top of a linked worktree git worktree add made
	madeWorktree                 // below the top of one written as git writes it (a fuzz input's)
)

func (k repoKind) String() string {
	return [...]string{"repository", "git worktree add", "linked worktree"}[k]
}

// aboveLayout is a repository and a user's home, each in a test's own
// directories, with the workspace's root below the work tree's top.
type aboveLayout struct {
	base   string
	top    string // the work tree's top
	root   string // the workspace's root, below top
	gitDir string // the work tree's git directory
	common string // the repository's common directory
	env    map[string]string
}

// newAboveLayout makes a repository of kind with the root at the
// slash-separated root below its top; HOME is base/home, and
// XDG_CONFIG_HOME base/xdg when xdg (else git's default, ~/.config).
func newAboveLayout(t testing.TB, git string, kind repoKind, root string, xdg bool) aboveLayout {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := aboveLayout{base: base, top: filepath.Join(base, "main"),
		env: map[string]string{"HOME": filepath.Join(base, "home"), "GIT_CONFIG_NOSYSTEM": "1"}}
	if xdg {
		l.env["XDG_CONFIG_HOME"] = filepath.Join(base, "xdg")
	}
	l.common = filepath.Join(l.top, ".git")
	l.gitDir = l.common
	switch kind {
	case plainRepo:
		gitignoretest.Repo(t, l.top)
	case realWorktree, madeWorktree:
		main := l.top
		l.top = filepath.Join(base, "wt")
		l.gitDir = filepath.Join(l.common, "worktrees", "wt")
		if kind == madeWorktree {
			gitignoretest.LinkedRepo(t, main, l.top)
		} else {
			home := t.TempDir()
			gitignoretest.Worktree(t, git, main, l.top, home)
		}
	}
	l.root = filepath.Join(l.top, filepath.FromSlash(root))
	if err := os.MkdirAll(l.root, 0o755); err != nil {
		t.Fatal(err)
	}
	return l
}

// write writes content to the file name (appending), which lies where
// path says; $BASE in content is base.
func (l aboveLayout) write(t testing.TB, name, content string) {
	t.Helper()
	p := l.path(t, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	// Appended: git worktree add wrote the repository's config.
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.ReplaceAll(content, "$BASE", l.base)); err != nil {
		t.Fatal(err)
	}
}

// path is where a case's file name lies: its first component says below
// what (top, gitdir, common, home, xdg, base).
func (l aboveLayout) path(t testing.TB, name string) string {
	t.Helper()
	where, rest, _ := strings.Cut(name, "/")
	dir := map[string]string{"top": l.top, "gitdir": l.gitDir, "common": l.common, "home": l.env["HOME"],
		"xdg": filepath.Join(l.base, "xdg"), "base": l.base}[where]
	if dir == "" {
		t.Fatalf("%q: not below a directory of the layout", name)
	}
	return filepath.Join(dir, filepath.FromSlash(rest))
}

// gitEnv is the layout's user environment for a git run.
func (l aboveLayout) gitEnv() []string {
	var env []string
	for name, value := range l.env {
		if name != "GIT_CONFIG_NOSYSTEM" {
			env = append(env, name+"="+value)
		}
	}
	return env
}

// checkAsGit holds a workspace over the layout's root to git's word,
// run in the root, on paths (below it) and every file and directory in
// it: Ignored and a walk, .geminiignore files counted or not.
func (l aboveLayout) checkAsGit(t testing.TB, git string, paths []string) {
	t.Helper()
	if paths == nil {
		paths = treePaths(t, l.root)
	}
	verdicts := gitignoretest.CheckIgnoreIn(t, git, l.root, l.gitEnv(), nil, paths)
	for _, files := range []IgnoreFiles{{SkipGemini: true}, {}} {
		checkWorkspaceAsGit(t, gitWorkspace(t, l.root, false, l.env), files, verdicts)
	}
}

// aboveCase is a root below a work tree's top and what git reads there:
// the .gitignore files from the top down, info/exclude, the user's and
// the repository's configuration and excludes files.
type aboveCase struct {
	name  string
	root  string            // below the top, slash-separated
	xdg   bool              // XDG_CONFIG_HOME set; else git's default is ~/.config
	files map[string]string // named as aboveLayout.path names them
	links map[string]string // symlinks, named so, to files named so
	paths []string          // made below the root; a trailing '/' makes a directory
}

var aboveCases = []aboveCase{
	{name: "the top's .gitignore", root: "app", files: map[string]string{
		"top/.gitignore": "*.log\n!keep.log\n/app/build/\napp/x.tmp\n/y.tmp\nsub/z\n",
	}, paths: []string{"a.log", "keep.log", "build/o", "sub/build/", "x.tmp", "y.tmp", "sub/a.log", "sub/z", "z"}},
	{name: "a .gitignore in every directory down to the root", root: "a/b", files: map[string]string{
		"top/.gitignore": "*.txt\n/a/b/top-anchored\n", "top/a/.gitignore": "!keep.txt\n/b/local\nb/c/deep\n", "top/a/b/.gitignore": "!own.txt\n",
	}, paths: []string{"keep.txt", "x.txt", "own.txt", "local", "c/local", "c/deep", "top-anchored"}},
	{name: "the top ignores the root", root: "app", files: map[string]string{
		"top/.gitignore": "app/\n",
	}, paths: []string{"x", "d/y"}},
	{name: "a directory on the way down ignored", root: "a/b", files: map[string]string{
		"top/.gitignore": "a/\n", "top/a/.gitignore": "!b/\n!*\n",
	}, paths: []string{"x", "d/"}},
	{name: "the root re-included cannot be", root: "a/b", files: map[string]string{
		"top/.gitignore": "a/*\n!a/b/\n",
	}, paths: []string{"x", "d/y"}},
	{name: "info/exclude below the .gitignore files", root: "app", files: map[string]string{
		"common/info/exclude": "*.secret\n!keep.secret\nlocal/\n", "top/.gitignore": "keep.secret\n", "top/app/.gitignore": "!local/\n",
	}, paths: []string{"a.secret", "keep.secret", "local/x"}},
	{name: "core.excludesFile in the repository's configuration", root: "app", files: map[string]string{
		"common/config":         "[core]\n\texcludesFile = $BASE/elsewhere/ignore\n",
		"base/elsewhere/ignore": "*.bak\n!top.bak\nother.bak\n",
		"common/info/exclude":   "!other.bak\n",
		"top/.gitignore":        "top.bak\n",
	}, paths: []string{"a.bak", "top.bak", "other.bak", "d/b.bak"}},
	{name: "core.excludesFile with ~/ in ~/.gitconfig, through an include", root: "app", files: map[string]string{
		"home/.gitconfig":    "[include]\n\tpath = more.inc\n[core]\n\tignoreCase = false\n",
		"home/more.inc":      "[core]\n\texcludesfile = ~/global.ignore\n",
		"home/global.ignore": "*.swp\n",
	}, paths: []string{"a.swp", "a.swo"}},
	{name: "a relative core.excludesFile is the top's", root: "app", files: map[string]string{
		"common/config": "[core]\n\texcludesFile = rel.ignore\n", "top/rel.ignore": "*.rel\n", "top/app/rel.ignore": "*.app\n",
	}, paths: []string{"a.rel", "a.app"}},
	{name: "the default excludes file, $XDG_CONFIG_HOME/git/ignore", root: "app", xdg: true, files: map[string]string{
		"xdg/git/ignore": "*.o\n", "home/.config/git/ignore": "*.a\n",
	}, paths: []string{"x.o", "x.a"}},
	{name: "the default excludes file, ~/.config/git/ignore", root: "app", files: map[string]string{
		"home/.config/git/ignore": "*.a\n", "xdg/git/ignore": "*.o\n",
	}, paths: []string{"x.o", "x.a"}},
	{name: "core.excludesFile in $XDG_CONFIG_HOME/git/config, ~/.gitconfig later", root: "app", xdg: true, files: map[string]string{
		"xdg/git/config": "[core]\n\texcludesFile = $BASE/first\n", "home/.gitconfig": "[core]\n\texcludesFile = $BASE/second\n",
		"base/first": "*.1\n", "base/second": "*.2\n",
	}, paths: []string{"x.1", "x.2"}},
	{name: "an empty core.excludesFile reads no default", root: "app", xdg: true, files: map[string]string{
		"common/config": "[core]\n\texcludesFile =\n", "xdg/git/ignore": "*.o\n",
	}, paths: []string{"x.o"}},
	{name: "core.ignorecase in the repository's configuration", root: "app", files: map[string]string{
		"common/config": "[core]\n\tignorecase = true\n", "top/.gitignore": "Secret.txt\n*.LOG\nAPP/Sub/x\n",
		"common/info/exclude": "*.KEY\n", "top/app/.gitignore": "/Own\n",
	}, paths: []string{"secret.txt", "x.log", "id.key", "sub/x", "own"}},
	{name: "core.ignorecase folds the way to the root", root: "app", files: map[string]string{
		"common/config": "[core]\n\tignorecase = yes\n", "top/.gitignore": "APP/\n",
	}, paths: []string{"x"}},
	{name: "core.ignorecase false in the repository over true in the user's", root: "app", files: map[string]string{
		"home/.gitconfig": "[core]\n\tignorecase = true\n", "common/config": "[core]\n\tignorecase = false\n", "top/.gitignore": "Secret.txt\n",
	}, paths: []string{"secret.txt", "Secret.txt"}},
	{name: "the root at the top", root: ".", xdg: true, files: map[string]string{
		"common/info/exclude": "*.secret\n", "xdg/git/ignore": "*.o\n", "common/config": "[core]\n\tignorecase = true\n", "top/.gitignore": "!Keep.O\n",
	}, paths: []string{"a.SECRET", "x.o", "keep.o", "d/y.O"}},
	// Git reads a work tree's .gitignore only when it is no symlink (git
	// 2.32 on), and the other files wherever their symlinks lead.
	{name: "symlinks", root: "app", files: map[string]string{
		"base/elsewhere.ignore": "*.x\n", "base/exclude": "*.y\n", "base/user": "*.z\n",
	}, links: map[string]string{"top/.gitignore": "base/elsewhere.ignore", "common/info/exclude": "base/exclude", "home/.config/git/ignore": "base/user"},
		paths: []string{"a.x", "a.y", "a.z"}},
	// Git reads extensions only where core.repositoryformatversion is set
	// (git init sets it; gitignoretest.Repo does not).
	{name: "config.worktree under extensions.worktreeConfig", root: "app", files: map[string]string{
		"common/config":          "[core]\n\trepositoryformatversion = 0\n[extensions]\n\tworktreeConfig = true\n[core]\n\texcludesFile = $BASE/common.ignore\n",
		"gitdir/config.worktree": "[core]\n\texcludesFile = $BASE/worktree.ignore\n",
		"base/common.ignore":     "*.c\n", "base/worktree.ignore": "*.w\n",
	}, paths: []string{"x.c", "x.w"}},
	{name: "no config.worktree where the repository says no format", root: "app", files: map[string]string{
		"common/config":          "[extensions]\n\tworktreeConfig = true\n[core]\n\texcludesFile = $BASE/common.ignore\n",
		"gitdir/config.worktree": "[core]\n\texcludesFile = $BASE/worktree.ignore\n",
		"base/common.ignore":     "*.c\n", "base/worktree.ignore": "*.w\n",
	}, paths: []string{"x.c", "x.w"}},
}

// TestIgnoreBelowTheTopMatchesGit: with the root below a work tree's
// top, in a repository's own work tree and in a linked worktree (git
// worktree add's), every path of the root is ignored (Ignored, a walk)
// exactly when git check-ignore run in the root says so: the .gitignore
// files from the top down, the common directory's info/exclude,
// core.excludesFile (set in either configuration, or git's default under
// $XDG_CONFIG_HOME or ~/.config) and core.ignorecase all count, as git
// counts them.
func TestIgnoreBelowTheTopMatchesGit(t *testing.T) {
	git := gitignoretest.Git(t)
	version := gitignoretest.Version(t, git)
	for _, c := range aboveCases {
		for name, content := range c.files {
			if gitignoretest.ForGit(version, content) != content {
				t.Fatalf("%s: %s means something else to git %d.%d", c.name, name, version[0], version[1])
			}
		}
		for _, kind := range []repoKind{plainRepo, realWorktree, madeWorktree} {
			t.Run(c.name+"/"+kind.String(), func(t *testing.T) {
				l := newAboveLayout(t, git, kind, c.root, c.xdg)
				for name, content := range c.files {
					l.write(t, name, content)
				}
				for name, target := range c.links {
					link := l.path(t, name)
					if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
						t.Fatal(err)
					}
					_ = os.Remove(link) // git init's info/exclude
					platformtest.Symlink(t, l.path(t, target), link)
				}
				for _, p := range c.paths {
					if err := makePath(l.root, p); err != nil {
						t.Fatal(err)
					}
				}
				l.checkAsGit(t, git, nil)
			})
		}
	}
}

// excludesVia is where a fuzz input's user excludes file is named.
var excludesVia = []struct {
	xdg   bool
	files map[string]string // and the file itself, at "$FILE"
}{
	{xdg: true, files: map[string]string{"xdg/git/ignore": "$FILE"}},
	{files: map[string]string{"home/.config/git/ignore": "$FILE"}},
	{files: map[string]string{"common/config": "[core]\n\texcludesFile = $BASE/user.ignore\n", "base/user.ignore": "$FILE"}},
	{files: map[string]string{"home/.gitconfig": "[core]\n\texcludesFile = ~/user.ignore\n", "home/user.ignore": "$FILE"}},
	{files: map[string]string{"common/config": "[core]\n\texcludesFile = user.ignore\n", "top/user.ignore": "$FILE"}},
}

// FuzzIgnoreBelowTheTopMatchesGit: whatever the rules of the top's
// .gitignore, the root's (app, below the top), info/exclude and the
// user's excludes file (named in any of the ways excludesVia says), in a
// repository's own work tree or a linked worktree, with core.ignorecase
// in the repository's configuration or not, a path below the root and
// each directory holding it are ignored (Ignored, a walk) exactly when
// git check-ignore run in the root says so. One git run an input.
//
//	go test -run '^$' -fuzz FuzzIgnoreBelowTheTopMatchesGit ./internal/workspace/
func FuzzIgnoreBelowTheTopMatchesGit(f *testing.F) {
	for i, c := range aboveCases {
		p := c.paths[0]
		f.Add(c.files["top/.gitignore"], c.files["top/app/.gitignore"], c.files["common/info/exclude"], c.files["home/.config/git/ignore"],
			strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/"), strings.Contains(c.files["common/config"], "ignorecase = true"), i%2 == 0, uint8(i))
	}
	f.Add("/app/x/\n", "", "", "", "x/y", false, false, false, uint8(0))
	f.Add("app/X\n", "!x\n", "", "*", "x", false, true, true, uint8(3))
	git := gitignoretest.Git(f)
	version := gitignoretest.Version(f, git)
	f.Fuzz(func(t *testing.T, top, own, exclude, user, path string, isDir, fold, worktree bool, via uint8) {
		for _, rules := range []string{top, own, exclude, user} {
			if len(rules) > 4096 || gitignoretest.ForGit(version, rules) != rules {
				return
			}
		}
		parts := fuzzPath(path)
		if len(parts) == 0 {
			return
		}
		kind := plainRepo
		if worktree {
			kind = madeWorktree
		}
		v := excludesVia[int(via)%len(excludesVia)]
		l := newAboveLayout(t, git, kind, "app", v.xdg)
		for name, content := range v.files {
			l.write(t, name, strings.ReplaceAll(content, "$FILE", user))
		}
		if fold {
			l.write(t, "common/config", "[core]\n\tignorecase = true\n")
		}
		l.write(t, "top/.gitignore", top)
		l.write(t, "top/app/.gitignore", own)
		l.write(t, "common/info/exclude", exclude)
		var paths []string // the path and every directory holding it
		for i := range parts {
			paths = append(paths, strings.Join(parts[:i+1], "/"))
		}
		made := paths[len(paths)-1]
		if isDir {
			made += "/"
		}
		if err := makePath(l.root, made); err != nil {
			t.Skipf("the file system refuses %q: %v", made, err)
		}
		l.checkAsGit(t, git, paths)
	})
}

// BenchmarkIgnored is one Ignored of a file in a root by itself, in a
// repository's top and below a linked worktree's top (three .gitignore
// files above it, info/exclude, a user's configuration and excludes
// file), the repository's files read once and stat-ed each time after.
func BenchmarkIgnored(b *testing.B) {
	for _, c := range []struct {
		name string
		kind repoKind
		root string
	}{{"no repository", -1, ""}, {"repository's top", plainRepo, "."}, {"below a linked worktree's top", madeWorktree, "a/b/c"}} {
		b.Run(c.name, func(b *testing.B) {
			var root string
			env := map[string]string{"HOME": b.TempDir(), "GIT_CONFIG_NOSYSTEM": "1"}
			if c.kind < 0 {
				root = b.TempDir()
			} else {
				l := newAboveLayout(b, "", c.kind, c.root, false)
				for name, content := range map[string]string{
					"top/.gitignore": "*.o\n", "top/a/.gitignore": "*.a\n", "top/a/b/.gitignore": "*.b\n",
					"common/info/exclude": "*.x\n", "home/.gitconfig": "[core]\n\texcludesFile = ~/ignore\n", "home/ignore": "*.swp\n",
				} {
					l.write(b, name, content)
				}
				root, env = l.root, l.env
			}
			if err := makePath(root, "d/file.go"); err != nil {
				b.Fatal(err)
			}
			w := gitWorkspace(b, root, false, env)
			path := filepath.Join(w.Roots()[0], "d", "file.go")
			for b.Loop() {
				if ignored, err := w.Ignored(b.Context(), path); err != nil || ignored {
					b.Fatal(ignored, err)
				}
			}
		})
	}
}

// A linked worktree inside its main repository's work tree (where a
// session's worktree may be made) is a work tree of its own: the main
// tree's .gitignore files, which may ignore the worktree's directory,
// hold nothing in it, and the main repository's info/exclude holds, as
// git check-ignore run in the worktree says.
func TestIgnoreInAWorktreeInsideTheMainTree(t *testing.T) {
	git := gitignoretest.Git(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	main := filepath.Join(base, "main")
	wt := filepath.Join(main, ".gemini", "worktrees", "s1")
	gitignoretest.Worktree(t, git, main, wt, home)
	for name, content := range map[string]string{
		".gitignore": "*.log\n.gemini/\n", ".gemini/.gitignore": "*\n", ".git/info/exclude": "*.secret\n",
		".gemini/worktrees/s1/app/a.log": "", ".gemini/worktrees/s1/app/b.secret": "", ".gemini/worktrees/s1/app/c.txt": "",
	} {
		if err := writeFile(main, name, content); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}
	for _, root := range []string{wt, filepath.Join(wt, "app")} {
		paths := treePaths(t, root)
		verdicts := gitignoretest.CheckIgnoreIn(t, git, root, []string{"HOME=" + home}, nil, paths)
		w := gitWorkspace(t, root, false, env)
		checkWorkspaceAsGit(t, w, IgnoreFiles{}, verdicts)
		for name, want := range map[string]bool{"a.log": false, "b.secret": true, "c.txt": false} {
			if ignored, err := w.Ignored(t.Context(), filepath.Join(wt, "app", name)); err != nil || ignored != want {
				t.Errorf("root %s: Ignored(%s) = %v, %v; want %v", root, name, ignored, err, want)
			}
		}
	}
}
