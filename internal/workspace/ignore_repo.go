package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/gitconfig"
	"github.com/gemini-ls/gemini-ls/internal/gitignore"
	"github.com/gemini-ls/gemini-ls/internal/gitmark"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// maxConfigIncludes is how deep git follows include.path (config.c's
// MAX_INCLUDE_DEPTH); deeper, git refuses the configuration.
const maxConfigIncludes = 10

// ruleOrigin is where one scope's ignore rules come from.
type ruleOrigin struct {
	// root is the scope (a root or allowed directory): its own ignore
	// files (.gitignore, .geminiignore, the custom ones) are read there.
	root string
	// top is the directory the rules' bases are relative to: the top of
	// the git work tree holding root, or root itself.
	top string
	// inRepo: a git repository holds root, so its info/exclude is the
	// repository's (repoIgnore), not root's .git/info/exclude.
	inRepo bool
	fold   bool // the rules match ASCII letters without case (core.ignorecase)
}

// repoIgnore is what is in force at a root before its own ignore files
// are read: git's rules from above it.
type repoIgnore struct {
	origin ruleOrigin
	// dir is root below origin.top: "" or slash-separated, ending in '/'.
	dir string
	// patterns, lowest first: core.excludesFile, the repository's
	// info/exclude, each .gitignore from the top down to root's parent.
	patterns []gitignore.Pattern
	// all: a directory from the top down to root, root too, is ignored,
	// and so is everything in root.
	all bool
}

// repoKey tells one root's reading of its repository from another's.
type repoKey struct {
	root, top, files string
	fold             bool // the default, without core.ignorecase
}

// repoRead is a repoIgnore with the files read to make it: it stands
// while none of them changed.
type repoRead struct {
	read repoIgnore
	deps []gitDep
}

// gitDep is one file a repoIgnore was made from (or found missing).
type gitDep struct {
	path   string
	follow bool // a symlink is followed
	stamp  fileStamp
}

// repoIgnoreOf is what git's rules above root (a root of w; an allowed
// directory is never read from above) put in force at root, as git
// reads them when a command runs in root: the repository holding root
// is the nearest directory from root up that is a work tree's top
// (gitmark: not the empty .git a sandbox makes); git reads its
// configuration, core.excludesFile (by default $XDG_CONFIG_HOME/git/ignore,
// else ~/.config/git/ignore), the info/exclude of its common directory
// (a linked worktree's is the main repository's) and the .gitignore files
// of the top and every directory down to root, and stops at a directory
// they ignore. Nothing is read above root that git would not read there;
// nothing runs.
func (w *Workspace) repoIgnoreOf(files IgnoreFiles, root string) repoIgnore {
	outside := repoIgnore{origin: ruleOrigin{root: root, top: root, fold: w.foldIgnoreCase}}
	if !w.isRoot(root) {
		return outside
	}
	top := gitmark.Root(root)
	if top == "" {
		return outside
	}
	key := repoKey{root: root, top: top, files: files.key(), fold: w.foldIgnoreCase}
	w.ignoreMu.Lock()
	cached, ok := w.repos[key]
	w.ignoreMu.Unlock()
	if ok && depsUnchanged(cached.deps) {
		return cached.read
	}
	r := repoReader{lookupEnv: w.lookupEnv}
	read := r.ignore(files, root, top, w.foldIgnoreCase)
	w.ignoreMu.Lock()
	w.repos[key] = &repoRead{read: read, deps: r.deps}
	w.ignoreMu.Unlock()
	return read
}

// isRoot reports whether dir is one of w's roots.
func (w *Workspace) isRoot(dir string) bool {
	w.rootsMu.RLock()
	defer w.rootsMu.RUnlock()
	return slices.ContainsFunc(w.roots, func(root string) bool { return samePath(root, dir) })
}

// depsUnchanged reports whether every file still stats as it did.
func depsUnchanged(deps []gitDep) bool {
	for _, d := range deps {
		if statGitFile(d.path, d.follow) != d.stamp {
			return false
		}
	}
	return true
}

// statGitFile is path's stamp: a regular file's, or none.
func statGitFile(path string, follow bool) fileStamp {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), mod: fi.ModTime()}
}

// repoReader reads a repository's files as git does, noting each.
type repoReader struct {
	lookupEnv func(string) (string, bool)
	deps      []gitDep
}

// read is the regular file path's content, at most maxIgnoreFileSize
// bytes; nil when it is missing, not a regular file, too large or
// unreadable (git reads nothing from it either, or refuses it). follow
// false reads no symlink, as git reads a work tree's .gitignore.
func (r *repoReader) read(path string, follow bool) []byte {
	stamp := statGitFile(path, follow)
	r.deps = append(r.deps, gitDep{path: path, follow: follow, stamp: stamp})
	if !stamp.exists {
		return nil
	}
	data, err := safefile.Read(path, maxIgnoreFileSize)
	if err != nil {
		return nil
	}
	return data
}

func (r *repoReader) env(name string) string {
	v, _ := r.lookupEnv(name)
	return v
}

// home is the home directory as git finds it: $HOME, and on Windows,
// where git for Windows sets HOME from it when unset, %USERPROFILE%.
func (r *repoReader) home() string {
	if home := r.env("HOME"); home != "" || runtime.GOOS != "windows" {
		return home
	}
	return r.env("USERPROFILE")
}

// ignore reads root's rules from the repository whose top is top.
func (r *repoReader) ignore(files IgnoreFiles, root, top string, fold bool) repoIgnore {
	gitDir, commonDir := r.gitDirs(top)
	config := r.config(gitDir, commonDir)
	if config.ignoreCaseSet {
		fold = config.ignoreCase
	}
	out := repoIgnore{origin: ruleOrigin{root: root, top: top, inRepo: true, fold: fold}}
	rel, err := filepath.Rel(top, root)
	if err != nil {
		return out
	}
	if rel != "." {
		out.dir = filepath.ToSlash(rel) + "/"
	}
	if files.SkipGit {
		return out
	}
	if excludes := r.excludesFile(config, top); excludes != "" {
		out.patterns = gitignore.Parse(r.read(excludes, true), "", fold)
	}
	out.patterns = append(out.patterns, gitignore.Parse(r.read(filepath.Join(commonDir, "info", "exclude"), true), "", fold)...)
	if rel == "." {
		return out // root's .gitignore is root's own
	}
	dir, base := top, ""
	for name := range strings.SplitSeq(rel, string(filepath.Separator)) {
		out.patterns = append(out.patterns, gitignore.Parse(r.read(filepath.Join(dir, ".gitignore"), false), base, fold)...)
		if gitignore.Ignored(out.patterns, base, name, true) {
			return repoIgnore{origin: out.origin, dir: out.dir, all: true}
		}
		dir, base = filepath.Join(dir, name), base+name+"/"
	}
	return out
}

// gitDirs are the git directory of the work tree at top and the
// repository's common directory, as git's setup finds them: top/.git,
// or the directory a .git file names ("gitdir: DIR", relative to top),
// and the directory its commondir file names (relative to the git
// directory), else the git directory itself.
func (r *repoReader) gitDirs(top string) (gitDir, commonDir string) {
	gitDir = filepath.Join(top, ".git")
	if data := r.read(gitDir, false); data != nil {
		named, ok := strings.CutPrefix(string(data), "gitdir: ")
		if !ok {
			return gitDir, gitDir // git refuses it: nothing in it to read
		}
		gitDir = relativeTo(top, strings.TrimRight(named, "\r\n"))
	}
	commonDir = gitDir
	if data := r.read(filepath.Join(gitDir, "commondir"), true); data != nil {
		commonDir = relativeTo(gitDir, strings.TrimRight(string(data), "\r\n"))
	}
	return gitDir, commonDir
}

// relativeTo is p, relative to dir unless absolute.
func relativeTo(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// gitConfig is what the ignore rules need of a repository's
// configuration: the last value of each variable git read.
type gitConfig struct {
	excludesFile              string
	excludesFileSet           bool
	ignoreCase, ignoreCaseSet bool
	worktreeConfig            bool   // extensions.worktreeConfig, in the repository's own file
	formatVersion             bool   // core.repositoryformatversion is set there
	home                      string // where ~/ leads
}

// config reads the configuration files git reads, in git's order (a
// later value wins): the system's (/etc/gitconfig, or
// $GIT_CONFIG_SYSTEM; none under GIT_CONFIG_NOSYSTEM), the user's
// ($XDG_CONFIG_HOME/git/config, else ~/.config/git/config, then
// ~/.gitconfig; or $GIT_CONFIG_GLOBAL alone), the repository's (its
// common directory's config) and, under extensions.worktreeConfig in a
// repository that says its format version, the work tree's
// config.worktree. include.path is followed as git follows
// it; includeIf is not (its conditions are not judged here), so a value
// set only under an includeIf is missed.
func (r *repoReader) config(gitDir, commonDir string) gitConfig {
	c := gitConfig{home: r.home()}
	if nosystem, _ := gitconfig.Bool(r.env("GIT_CONFIG_NOSYSTEM")); !nosystem {
		if system, ok := r.lookupEnv("GIT_CONFIG_SYSTEM"); ok {
			r.configFile(&c, system, 0, false)
		} else if runtime.GOOS != "windows" {
			// Git as most systems build it; a git built elsewhere
			// (Homebrew's, Xcode's) reads its own prefix's, not read here.
			r.configFile(&c, "/etc/gitconfig", 0, false)
		}
	}
	if global, ok := r.lookupEnv("GIT_CONFIG_GLOBAL"); ok {
		r.configFile(&c, global, 0, false)
	} else {
		if xdg := r.xdgConfig("config"); xdg != "" {
			r.configFile(&c, xdg, 0, false)
		}
		if c.home != "" {
			r.configFile(&c, filepath.Join(c.home, ".gitconfig"), 0, false)
		}
	}
	r.configFile(&c, filepath.Join(commonDir, "config"), 0, true)
	// Git reads extensions only from a repository that says its format
	// (setup.c's check_repository_format_gently).
	if c.worktreeConfig && c.formatVersion {
		r.configFile(&c, filepath.Join(gitDir, "config.worktree"), 0, false)
	}
	return c
}

// configFile reads one configuration file into c, and the files it
// includes where it includes them. repository: the repository's own
// file, the one git reads extensions from.
func (r *repoReader) configFile(c *gitConfig, path string, depth int, repository bool) {
	if path == "" || depth > maxConfigIncludes {
		return
	}
	for _, e := range gitconfig.Parse(r.read(path, true)) {
		switch {
		case e.Section == "include" && e.Subsection == "" && e.Name == "path":
			if inc := c.expandPath(e.Value); inc != "" {
				r.configFile(c, relativeTo(filepath.Dir(path), inc), depth+1, false)
			}
		case e.Section == "core" && e.Subsection == "" && e.Name == "excludesfile":
			c.excludesFile, c.excludesFileSet = c.expandPath(e.Value), true
		case e.Section == "core" && e.Subsection == "" && e.Name == "ignorecase":
			if b, ok := gitconfig.Bool(e.Value); ok {
				c.ignoreCase, c.ignoreCaseSet = b, true
			}
		case repository && e.Section == "extensions" && e.Subsection == "" && e.Name == "worktreeconfig":
			c.worktreeConfig, _ = gitconfig.Bool(e.Value)
		case repository && e.Section == "core" && e.Subsection == "" && e.Name == "repositoryformatversion":
			c.formatVersion = true
		}
	}
}

// expandPath is a path in git's configuration with a leading ~/ the
// home directory, as git's interpolate_path reads it; "" for one it
// cannot read here (~user/, %(prefix)/).
func (c *gitConfig) expandPath(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if c.home == "" {
			return ""
		}
		return filepath.Join(c.home, p[1:])
	case strings.HasPrefix(p, "~"), strings.HasPrefix(p, "%(prefix)/"):
		return ""
	}
	return p
}

// excludesFile is the file core.excludesFile names (relative to the
// top, where git runs), else git's default, $XDG_CONFIG_HOME/git/ignore
// or ~/.config/git/ignore; "" for none (an empty core.excludesFile).
func (r *repoReader) excludesFile(c gitConfig, top string) string {
	if c.excludesFileSet {
		if c.excludesFile == "" {
			return ""
		}
		return relativeTo(top, c.excludesFile)
	}
	return r.xdgConfig("ignore")
}

// xdgConfig is git's file name in the user's configuration directory:
// $XDG_CONFIG_HOME/git/name, else ~/.config/git/name; "" when neither
// variable is set.
func (r *repoReader) xdgConfig(name string) string {
	if xdg := r.env("XDG_CONFIG_HOME"); xdg != "" {
		return filepath.Join(xdg, "git", name)
	}
	if home := r.home(); home != "" {
		return filepath.Join(home, ".config", "git", name)
	}
	return ""
}
