package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/gitignore"
)

// foldIgnoreCase: ignore rules match ASCII letters without case where
// file systems are case-insensitive by default (Windows, macOS), as git
// does there (git init sets core.ignorecase on such a file system): a
// rule naming secret.txt hides Secret.txt, the same file. Elsewhere they
// match case for case, as git does. A repository's core.ignorecase says
// otherwise for the roots in it (repoIgnoreOf).
const foldIgnoreCase = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

// IgnoreFiles chooses the ignore files whose rules count, as Gemini CLI's
// context.fileFiltering settings do. The zero value counts them all:
// .gitignore and then .geminiignore in every directory, and below both
// git's from above a root in a repository (repoIgnoreOf), or at a root
// outside any its .git/info/exclude.
type IgnoreFiles struct {
	// SkipGit: git's rules ignore nothing: .gitignore files (above a
	// root too), info/exclude, core.excludesFile (respectGitIgnore
	// false).
	SkipGit bool
	// SkipGemini: .geminiignore files ignore nothing (respectGeminiIgnore
	// false).
	SkipGemini bool
	// Custom are more ignore files, each a path joined to every root, as
	// 0.61 joins customIgnoreFilePaths to its project root, read at that
	// root over its .gitignore and .geminiignore, an earlier one over a
	// later (customIgnoreFilePaths). They count whatever SkipGit and
	// SkipGemini say.
	Custom []string
}

// inEveryDir are the names of the ignore files read in every directory,
// lowest priority first.
func (f IgnoreFiles) inEveryDir() []string {
	names := make([]string, 0, 2)
	if !f.SkipGit {
		names = append(names, ".gitignore")
	}
	if !f.SkipGemini {
		names = append(names, ".geminiignore")
	}
	return names
}

// atRoot are the ignore files read at root, lowest priority first;
// inRepo: a git repository holds root, whose info/exclude is read with
// the rules from above root (repoIgnore), not root's .git/info/exclude.
func (f IgnoreFiles) atRoot(root string, inRepo bool) []string {
	var files []string
	if !f.SkipGit && !inRepo {
		// Outside any repository git answers nothing; a .git of root's
		// own still counts, as it always has.
		files = append(files, filepath.Join(root, ".git", "info", "exclude"))
	}
	for _, name := range f.inEveryDir() {
		files = append(files, filepath.Join(root, name))
	}
	for _, custom := range slices.Backward(f.Custom) {
		files = append(files, filepath.Join(root, custom))
	}
	return files
}

// liftGit is f without .gitignore files and .git/info/exclude when
// lifted: the only ignore files a call's argument may lift
// (WalkOptions.LiftGitIgnore, IgnoredLiftingGit). .geminiignore and the
// custom ignore files are the user's word on what the agent may read:
// only settings lift them (SetIgnoreFiles).
func (f IgnoreFiles) liftGit(lifted bool) IgnoreFiles {
	f.SkipGit = f.SkipGit || lifted
	return f
}

// everyFile is f with every ignore file counted: what a private file is
// (IgnoredByAny).
func (f IgnoreFiles) everyFile() IgnoreFiles { return IgnoreFiles{Custom: f.Custom} }

// key tells f's choice of files apart from another's in the cache.
func (f IgnoreFiles) key() string {
	return fmt.Sprint(f.SkipGit, f.SkipGemini, strings.Join(f.Custom, "\x00"))
}

// SetIgnoreFiles chooses the ignore files whose rules count from now on
// (Gemini CLI's context.fileFiltering); every root's, in every listing,
// walk and Ignored.
func (w *Workspace) SetIgnoreFiles(f IgnoreFiles) {
	f.Custom = slices.Clone(f.Custom)
	w.ignoreMu.Lock()
	defer w.ignoreMu.Unlock()
	w.ignoreFiles = f
}

// IgnoreFiles is what SetIgnoreFiles chose last, for another workspace
// over the same files to count the same ones (SetIgnoreFiles): the
// memory's, which reaches a project's git root above the roots.
func (w *Workspace) IgnoreFiles() IgnoreFiles {
	f := w.countedIgnoreFiles()
	f.Custom = slices.Clone(f.Custom)
	return f
}

// countedIgnoreFiles are the ignore files SetIgnoreFiles chose.
func (w *Workspace) countedIgnoreFiles() IgnoreFiles {
	w.ignoreMu.Lock()
	defer w.ignoreMu.Unlock()
	return w.ignoreFiles
}

// alwaysSkipped are the directories Walk never enters, ignore rules or
// not, by name and the name of the directory holding them: .git,
// node_modules, and .gemini/worktrees, where sessions' git worktrees are
// (internal/worktree), each a whole copy of the project that the main
// workspace's tools must not search.
func alwaysSkipped(parent, name string) bool {
	return name == ".git" || name == "node_modules" || name == configfiles.Worktrees && parent == configfiles.Gemini
}

// ignoreRules are the patterns in force inside one directory of a walk:
// those of every root (or allowed directory) holding it, each read from
// its own root down. A root nested in another (AddRoot, an editor's
// folders /proj and /proj/pkg) keeps the outer root's rules: a path is
// ignored when any of them ignores it.
type ignoreRules struct {
	files  IgnoreFiles // which ignore files count
	scopes []rootRules
}

// rootRules are the patterns of one root in force inside a directory.
type rootRules struct {
	files    IgnoreFiles // which ignore files count
	origin   ruleOrigin
	dir      string // the directory below origin.top: "" or slash-separated, ending in '/'
	patterns []gitignore.Pattern
	all      bool // the directory is ignored, so is everything in it
}

// scopeRules are the patterns in force inside the scope (root or allowed
// directory) root itself: git's from above it (repoIgnoreOf), then its
// own ignore files'.
func (w *Workspace) scopeRules(ctx context.Context, files IgnoreFiles, root string) rootRules {
	repo := w.repoIgnoreOf(files, root)
	r := rootRules{files: files, origin: repo.origin, dir: repo.dir, all: repo.all}
	if !r.all {
		r.patterns = appendPatterns(repo.patterns, w.dirPatterns(ctx, files, repo.origin, root, nil))
	}
	return r
}

// rulesFor collects the patterns in force inside dir, from each root
// holding it down, reading each directory's ignore files on the way.
func (w *Workspace) rulesFor(ctx context.Context, files IgnoreFiles, dir string) ignoreRules {
	r := ignoreRules{files: files}
	for _, root := range w.scopesOf(dir) {
		r.scopes = append(r.scopes, w.rootRulesFor(ctx, files, root, dir))
	}
	return r
}

// rootRulesFor collects root's patterns in force inside dir.
func (w *Workspace) rootRulesFor(ctx context.Context, files IgnoreFiles, root, dir string) rootRules {
	r := w.scopeRules(ctx, files, root)
	if dir == root {
		return r
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return r
	}
	cur := root
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, name)
		r = w.descendRoot(ctx, r, name, cur, r.match(name, true), nil)
	}
	return r
}

// descend returns the rules inside the subdirectory name (at path dir) of
// r; ignored says the subdirectory itself is ignored (by any root's
// rules), and with it all below, so its ignore files are not read.
// listing, when not nil, is the subdirectory's listing, which tells its
// ignore files' stamps.
func (w *Workspace) descend(ctx context.Context, r ignoreRules, name, dir string, ignored bool, listing []listed) ignoreRules {
	out := ignoreRules{files: r.files, scopes: make([]rootRules, len(r.scopes), len(r.scopes)+1)}
	for i, s := range r.scopes {
		out.scopes[i] = w.descendRoot(ctx, s, name, dir, ignored, listing)
	}
	if !ignored && w.isScope(dir) {
		// A walk entering a root nested in the one it began in: that
		// root's rules (its .git/info/exclude, custom files) hold below.
		out.scopes = append(out.scopes, w.scopeRules(ctx, r.files, dir))
	}
	return out
}

func (w *Workspace) descendRoot(ctx context.Context, r rootRules, name, dir string, ignored bool, listing []listed) rootRules {
	if r.all || ignored {
		return rootRules{files: r.files, origin: r.origin, all: true}
	}
	return rootRules{
		files:    r.files,
		origin:   r.origin,
		dir:      r.dir + name + "/",
		patterns: appendPatterns(r.patterns, w.dirPatterns(ctx, r.files, r.origin, dir, listing)),
	}
}

// match reports whether any root's rules ignore name.
func (r ignoreRules) match(name string, isDir bool) bool {
	for _, s := range r.scopes {
		if s.match(name, isDir) {
			return true
		}
	}
	return false
}

func (r rootRules) match(name string, isDir bool) bool {
	if r.all {
		return true
	}
	return gitignore.Ignored(r.patterns, r.dir, name, isDir)
}

// appendPatterns never writes into base's backing array, so sibling
// directories can share their parent's patterns.
func appendPatterns(base, more []gitignore.Pattern) []gitignore.Pattern {
	if len(more) == 0 {
		return base
	}
	return append(slices.Clip(base), more...)
}

type ignoreKey struct {
	files, root, top, dir string
	fold                  bool
}

// ignoreFiles caches one directory's parsed ignore files; stamps tell
// when a file was added, removed or rewritten since.
type ignoreFiles struct {
	stamps   []fileStamp
	patterns []gitignore.Pattern
}

type fileStamp struct {
	exists bool
	size   int64
	mod    time.Time
}

// maxIgnoreFileSize is the largest ignore file read; a larger one, like
// an unreadable one, ignores nothing.
const maxIgnoreFileSize = 1 << 20

// dirPatterns returns the patterns of dir's own ignore files, those
// files counts, with bases relative to origin.top. Their stamps (is the cache
// still good?) are stat-ed, only for the files dir's listing (when given)
// shows: the files are read once and then only when they change.
func (w *Workspace) dirPatterns(ctx context.Context, counted IgnoreFiles, origin ruleOrigin, dir string, listing []listed) []gitignore.Pattern {
	root := origin.root
	names := counted.inEveryDir()
	if dir != root && !slices.ContainsFunc(names, func(name string) bool { return !listedAbsent(listing, true, name) }) {
		return nil // the listing shows none: most directories of a walk
	}
	var files []string
	if dir == root {
		files = counted.atRoot(root, origin.inRepo)
	} else {
		for _, name := range names {
			files = append(files, filepath.Join(dir, name))
		}
	}
	stamps := make([]fileStamp, len(files))
	// One base holds them all (dir's): its name is checked once.
	var b *baseDir
	for i, f := range files {
		if listedAbsent(listing, filepath.Dir(f) == dir, filepath.Base(f)) {
			continue
		}
		if b == nil || !within(b.path, f) {
			if b != nil {
				b.release()
			}
			var err error
			if b, _, err = w.keptBeneath(f, f); err != nil {
				continue
			}
		}
		if fi, err := b.root.Stat(relBeneath(b.path, f)); err == nil && fi.Mode().IsRegular() {
			stamps[i] = fileStamp{exists: true, size: fi.Size(), mod: fi.ModTime()}
		}
	}
	if b != nil {
		b.release()
	}

	key := ignoreKey{counted.key(), root, origin.top, dir, origin.fold}
	w.ignoreMu.Lock()
	cached, ok := w.ignores[key]
	w.ignoreMu.Unlock()
	if ok && slices.Equal(cached.stamps, stamps) {
		return cached.patterns
	}

	var base string
	if rel, err := filepath.Rel(origin.top, dir); err == nil && rel != "." {
		base = filepath.ToSlash(rel)
	}
	var patterns []gitignore.Pattern
	complete := true
	for i, f := range files {
		if !stamps[i].exists {
			continue
		}
		data, err := w.readRegular(ctx, f, maxIgnoreFileSize)
		if err != nil {
			// Unreadable rules ignore nothing, as with git; a read cut
			// short by ctx is not remembered.
			complete = complete && ctx.Err() == nil
			continue
		}
		patterns = append(patterns, gitignore.Parse(data, base, origin.fold)...)
	}
	if complete {
		w.ignoreMu.Lock()
		w.ignores[key] = &ignoreFiles{stamps: stamps, patterns: patterns}
		w.ignoreMu.Unlock()
	}
	return patterns
}

// listedAbsent reports whether a directory's listing (sorted by name;
// inDir false or a nil listing: not known from it) shows no file name,
// so that a walk stats only the ignore files that exist.
func listedAbsent(listing []listed, inDir bool, name string) bool {
	if listing == nil || !inDir {
		return false
	}
	i, found := slices.BinarySearchFunc(listing, name, func(e listed, name string) int { return strings.Compare(e.Name, name) })
	return !found || listing[i].IsDir
}
