package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Workspace is the set of roots plus the open documents. It is the one
// owner of the roots: whoever changes them (/directory add, the editor's
// workspace folders) changes them here, under rootsMu, and everything
// reads them from here, so a root removed is out of reach at once.
type Workspace struct {
	// rootsMu guards roots, which grow (AddRoot) and shrink (RemoveRoot);
	// the first never changes.
	rootsMu sync.RWMutex
	roots   []string
	docs    *Documents
	// buffers, when set, is asked for the editor's text by single-file
	// reads (see buffers.go).
	buffers Buffers

	// extraMu guards extra: directories outside the roots the agent may
	// read and write in too (Allow), never roots; and files, single
	// files outside them it may read and write (AllowFile).
	extraMu sync.RWMutex
	extra   []string
	files   []string

	// ignoreMu guards ignoreFiles, the ignore files that count
	// (SetIgnoreFiles), and ignores, the parsed ignore files per
	// directory.
	ignoreMu    sync.Mutex
	ignoreFiles IgnoreFiles
	ignores     map[ignoreKey]*ignoreFiles
	// repos are each root's reading of the git repository holding it
	// (repoIgnoreOf), under ignoreMu too.
	repos map[repoKey]*repoRead
	// lookupEnv tells git's variables (HOME, XDG_CONFIG_HOME,
	// GIT_CONFIG_*) as git would see them: the process's environment
	// (a test gives its own).
	lookupEnv func(string) (string, bool)

	// foldIgnoreCase: ignore rules match letters without case (the
	// system's foldIgnoreCase; a test sets it, before any rule is read,
	// to hold the folding to git's).
	foldIgnoreCase bool

	dirNames dirNames // listings' buffers
	bases    baseDirs // the roots and allowed directories, kept open
	// writes are the locks its changes' writes take (WriteLocks).
	writes *WriteLocks
}

// New returns a workspace over roots (absolute dirs; symlinks resolved) with
// docs as its overlay. docs may be nil for a headless workspace.
func New(roots []string, docs *Documents) (*Workspace, error) {
	if len(roots) == 0 {
		return nil, errors.New("creating workspace: no roots given")
	}
	w := &Workspace{docs: docs, ignores: make(map[ignoreKey]*ignoreFiles), repos: make(map[repoKey]*repoRead),
		lookupEnv: os.LookupEnv, foldIgnoreCase: foldIgnoreCase, writes: NewWriteLocks()}
	if w.docs == nil {
		w.docs = NewDocuments()
	}
	for _, root := range roots {
		real, err := resolveRoot(root)
		if err != nil {
			return nil, err
		}
		w.roots = append(w.roots, real)
	}
	return w, nil
}

// resolveRoot is root absolute with its symlinks resolved, which must be
// an existing directory.
func resolveRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("resolving workspace root %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolving workspace root %s: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("resolving workspace root %s: %w", root, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace root %s is not a directory", root)
	}
	return real, nil
}

// Roots returns the resolved roots; the first is the default for relative paths.
func (w *Workspace) Roots() []string {
	w.rootsMu.RLock()
	defer w.rootsMu.RUnlock()
	return append([]string(nil), w.roots...)
}

// AddRoot makes dir (relative to the first root when not absolute; an
// existing directory) a root from now on, as Gemini CLI's
// --include-directories and /directory add do: listed by Roots, searched,
// read and written like the others. It returns dir resolved, and whether
// it is new: a directory that is a root already is not added twice.
func (w *Workspace) AddRoot(dir string) (string, bool, error) {
	abs, err := w.absolute(dir)
	if err != nil {
		return "", false, fmt.Errorf("adding workspace root %s: %w", dir, err)
	}
	real, err := resolveRoot(abs)
	if err != nil {
		return "", false, err
	}
	w.rootsMu.Lock()
	defer w.rootsMu.Unlock()
	if slices.ContainsFunc(w.roots, func(root string) bool { return samePath(root, real) }) {
		return real, false, nil
	}
	w.roots = append(w.roots, real)
	return real, true, nil
}

// ErrFirstRoot is a removal of the first root: relative paths, the
// sessions and the project's settings and trust are anchored there, so it
// stays a root until the workspace is made anew (a restart).
var ErrFirstRoot = errors.New("the first workspace root stays a root while gemini-ls runs: relative paths, sessions and the project's settings are anchored there")

// RemoveRoot makes dir (as AddRoot takes it) a root no more, from now on:
// nothing in it is listed, read or written through the workspace, and a
// change prepared in it before is refused (StillHolds). It returns dir
// resolved, and whether it was a root; the first root is ErrFirstRoot. A
// directory that no longer exists is matched by its path as given.
func (w *Workspace) RemoveRoot(dir string) (string, bool, error) {
	abs, err := w.absolute(dir)
	if err != nil {
		return "", false, fmt.Errorf("removing workspace root %s: %w", dir, err)
	}
	real, err := resolveRoot(abs)
	if err != nil {
		real = abs // gone from disk: its path as the roots hold it
	}
	w.rootsMu.Lock()
	defer w.rootsMu.Unlock()
	i := slices.IndexFunc(w.roots, func(root string) bool { return samePath(root, real) })
	switch {
	case i < 0:
		return real, false, nil
	case i == 0:
		return real, false, fmt.Errorf("removing workspace root %s: %w", real, ErrFirstRoot)
	}
	w.roots = slices.Delete(w.roots, i, i+1)
	return real, true, nil
}

// StillHolds is nil when change's file is beneath a root or an allowed
// directory now; after its root was removed (RemoveRoot) since
// PrepareChange made it, an error wrapping ErrOutsideRoots that says so,
// worded for the model: the change must not land.
func (w *Workspace) StillHolds(change FileChange) error {
	path := filepath.Clean(change.Path)
	if w.scopeOf(path) != "" {
		return nil
	}
	return fmt.Errorf("%s is no longer in the workspace: its folder was removed from the editor's workspace folders, so the change was not made (%w)", path, ErrOutsideRoots)
}

// firstRoot is the root relative paths are resolved against.
func (w *Workspace) firstRoot() string {
	w.rootsMu.RLock()
	defer w.rootsMu.RUnlock()
	return w.roots[0]
}

// Allow makes dir, outside the roots, reachable as if it were inside
// them (by Resolve, the reads and PrepareChange), without making it a
// root: Roots never lists it and nothing searches it unless asked to.
// It returns dir absolute, with its symlinks resolved, as paths in it
// resolve. Gemini CLI's plans directories, under ~/.gemini/tmp, are
// allowed so.
func (w *Workspace) Allow(dir string) (string, error) {
	real, err := RealPath(dir)
	if err != nil {
		return "", fmt.Errorf("allowing %s: %w", dir, err)
	}
	// A base is opened as a directory: a file allowed so could not be
	// reached at all (AllowFile allows one).
	if fi, err := os.Stat(real); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("allowing %s: it is not a directory", dir)
	}
	w.extraMu.Lock()
	defer w.extraMu.Unlock()
	if !slices.ContainsFunc(w.extra, func(dir string) bool { return samePath(dir, real) }) {
		w.extra = append(w.extra, real)
	}
	return real, nil
}

// scopeOf returns the innermost root or allowed directory containing the
// absolute, cleaned path, or the path itself when it is an allowed file
// (AllowFile) and none does, or "" when none does: where its ignore rules
// start, and whether it may be touched at all.
func (w *Workspace) scopeOf(path string) string {
	best := w.RootOf(path)
	w.extraMu.RLock()
	for _, dir := range w.extra {
		if within(dir, path) && len(dir) > len(best) {
			best = dir
		}
	}
	w.extraMu.RUnlock()
	if best == "" && w.isAllowedFile(path) {
		return path
	}
	return best
}

// scopesOf returns every root and allowed directory containing the
// absolute, cleaned path, outermost first: each one's ignore rules hold
// of it, from that root down, so that a root nested in another keeps
// the outer one's rules.
func (w *Workspace) scopesOf(path string) []string {
	var scopes []string
	w.rootsMu.RLock()
	for _, root := range w.roots {
		if within(root, path) {
			scopes = append(scopes, root)
		}
	}
	w.rootsMu.RUnlock()
	w.extraMu.RLock()
	for _, dir := range w.extra {
		if within(dir, path) && !slices.ContainsFunc(scopes, func(s string) bool { return samePath(s, dir) }) {
			scopes = append(scopes, dir)
		}
	}
	w.extraMu.RUnlock()
	slices.SortStableFunc(scopes, func(a, b string) int { return len(a) - len(b) })
	return scopes
}

// isScope reports whether the absolute, cleaned dir is itself a root or
// an allowed directory.
func (w *Workspace) isScope(dir string) bool {
	same := func(s string) bool { return samePath(s, dir) }
	w.rootsMu.RLock()
	root := slices.ContainsFunc(w.roots, same)
	w.rootsMu.RUnlock()
	if root {
		return true
	}
	w.extraMu.RLock()
	defer w.extraMu.RUnlock()
	return slices.ContainsFunc(w.extra, same)
}

// Documents returns the overlay.
func (w *Workspace) Documents() *Documents { return w.docs }

// Resolve makes path absolute (relative to the first root), follows
// symlinks (of the longest existing prefix, for paths that do not exist yet)
// and returns ErrOutsideRoots (wrapped, naming the path) when it leaves every root.
func (w *Workspace) Resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("resolving path: the path is empty")
	}
	p, err := w.absolute(path)
	if err == nil && hostOS == "windows" {
		err = checkShare(p, slices.Concat(w.Roots(), w.allowed(), w.allowedFileDirs()))
	}
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	return w.resolveNamed(path, p)
}

// absolute is path absolute and cleaned, a relative one in the first
// root; on Windows, anchored as anchorWindowsPath says first.
func (w *Workspace) absolute(path string) (string, error) {
	first := w.firstRoot()
	if hostOS == "windows" {
		var err error
		if path, err = anchorWindowsPath(path, first); err != nil {
			return "", err
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(first, path)
	}
	return filepath.Clean(path), nil
}

// Display is path as the user is shown it: relative to the first root
// (DisplayFrom). The tools' messages and LSP's edit titles show a path
// so. A nil workspace (before LSP's initialize) shows every path as
// given.
func (w *Workspace) Display(path string) string {
	if w == nil {
		return path
	}
	roots := w.Roots()
	if len(roots) == 0 {
		return path
	}
	return DisplayFrom(roots[0], path)
}

// DisplayFrom is path as the user is shown it from dir: relative to dir,
// with forward slashes, when inside it; else as given. ACP shows paths
// from the cwd its client named.
func DisplayFrom(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// RootOf returns the innermost root containing the absolute, cleaned path,
// or "" when none does. It does not touch the file system.
func (w *Workspace) RootOf(path string) string {
	best := ""
	w.rootsMu.RLock()
	defer w.rootsMu.RUnlock()
	for _, root := range w.roots {
		if within(root, path) && len(root) > len(best) {
			best = root
		}
	}
	return best
}

// Within reports whether path is root or below it; both absolute and
// cleaned, and compared as they are: resolve symlinks first (RealPath).
func Within(root, path string) bool { return within(root, path) }

// checkResolved refuses paths that cannot have come from Resolve, so a
// caller that skipped it gets an error instead of reaching outside.
func (w *Workspace) checkResolved(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("path %s is not absolute; resolve it first", path)
	}
	if w.scopeOf(filepath.Clean(path)) == "" {
		return &outsideRootsError{path: path, resolved: filepath.Clean(path), roots: w.Roots()}
	}
	return nil
}

// outsideRootsError names the path and the roots; it matches ErrOutsideRoots.
type outsideRootsError struct {
	path, resolved string
	roots          []string
}

func (e *outsideRootsError) Error() string {
	roots := strings.Join(e.roots, ", ")
	if e.resolved == filepath.Clean(e.path) {
		return fmt.Sprintf("path %s is outside the workspace roots (%s)", e.path, roots)
	}
	return fmt.Sprintf("path %s resolves to %s, outside the workspace roots (%s)", e.path, e.resolved, roots)
}

func (e *outsideRootsError) Unwrap() error { return ErrOutsideRoots }

// RealPath is path absolute, with every symlink in it followed (those
// of its longest existing prefix, for a path that does not exist yet),
// where it lies wherever that is: what a check of where a path leads
// must look at, as Gemini CLI's resolveToRealPath.
func RealPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	real, err := resolveSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	return real, nil
}

// maxSymlinks bounds symlink chains, as the kernel does with ELOOP.
const maxSymlinks = 255

// resolveSymlinks follows every symlink in the absolute, cleaned path p.
// Missing trailing components are kept as they are, after resolving the
// longest existing prefix; a dangling symlink is followed to where its
// target would be created.
func resolveSymlinks(p string) (string, error) {
	return resolveSymlinksDepth(p, 0)
}

func resolveSymlinksDepth(p string, depth int) (string, error) {
	if depth > maxSymlinks {
		return "", fmt.Errorf("too many levels of symbolic links at %s", p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	realParent, err := resolveSymlinksDepth(parent, depth)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return filepath.Join(realParent, filepath.Base(p)), nil
	}
	// A dangling symlink: writing through it would create its target.
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(realParent, target)
	}
	return resolveSymlinksDepth(filepath.Clean(target), depth+1)
}
