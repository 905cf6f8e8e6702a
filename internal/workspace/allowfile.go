package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// AllowFile makes the one file at path, outside the roots, reachable as
// if it were inside them (by Resolve, the reads, PrepareChange and
// WriteFile), and nothing else of its directory: Gemini CLI's global
// GEMINI.md, the one file under ~/.gemini its file tools may touch. The
// file need not exist yet: the first write makes it, and its directory.
// Its symlinks, the file's own among them, are followed now, as Gemini
// CLI compares real paths, and it is reached from then on as that real
// path: from a handle on its directory (the base, beneath.go) by its
// one name, so a symlink put in its place later is refused, as
// anywhere beneath a root. It returns the path resolved. A directory is
// refused: Allow allows directories.
func (w *Workspace) AllowFile(path string) (string, error) {
	real, err := RealPath(path)
	if err != nil {
		return "", fmt.Errorf("allowing %s: %w", path, err)
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return "", fmt.Errorf("allowing %s: it is a directory, which AllowFile does not allow", path)
	}
	w.extraMu.Lock()
	defer w.extraMu.Unlock()
	if !slices.ContainsFunc(w.files, func(f string) bool { return samePath(f, real) }) {
		w.files = append(w.files, real)
	}
	return real, nil
}

// isAllowedFile reports whether the absolute, cleaned path is a file
// AllowFile made reachable.
func (w *Workspace) isAllowedFile(path string) bool {
	w.extraMu.RLock()
	defer w.extraMu.RUnlock()
	return slices.ContainsFunc(w.files, func(f string) bool { return samePath(f, path) })
}

// allowedFileDirs are the directories of the files AllowFile made
// reachable: each is the base its file is reached from, never a scope
// (nothing else in it is reachable).
func (w *Workspace) allowedFileDirs() []string {
	w.extraMu.RLock()
	defer w.extraMu.RUnlock()
	dirs := make([]string, 0, len(w.files))
	for _, f := range w.files {
		dirs = append(dirs, filepath.Dir(f))
	}
	return dirs
}
