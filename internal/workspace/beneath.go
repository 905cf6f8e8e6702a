package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Every file operation reaches what it opens, stats, creates, renames or
// removes from a directory handle (see doc.go): the outermost root or
// allowed directory holding the path, opened by name, then the rest of
// the path beneath it, by the kernel (openat2 with RESOLVE_BENEATH on
// Linux) or by os.Root, never by name from /. A path was resolved (its
// symlinks followed and the result checked) before; a symbolic link met
// on the way now was swapped in since, and is not followed out of the
// handle's directory: the operation fails (errSwapped) instead.

// beneathOf is real (absolute, cleaned, with its symlinks resolved) as a
// directory handle reaches it: base, the outermost root or allowed
// directory holding it, and rel, real relative to base ("." for base
// itself). The outermost, since a root or allowed directory inside
// another lies where a command writing in the outer one can move
// directories about. An allowed file (AllowFile) outside them is
// reached from its directory, rel its one name. path is the name errors
// give.
func (w *Workspace) beneathOf(path, real string) (base, rel string, err error) {
	for _, dir := range append(w.Roots(), w.allowed()...) {
		if within(dir, real) && (base == "" || len(dir) < len(base)) {
			base = dir
		}
	}
	if base == "" && w.isAllowedFile(real) {
		base = filepath.Dir(real)
	}
	if base == "" {
		return "", "", &outsideRootsError{path: path, resolved: real, roots: w.Roots()}
	}
	return base, relBeneath(base, real), nil
}

// allowed is the directories Allow made reachable.
func (w *Workspace) allowed() []string {
	w.extraMu.RLock()
	defer w.extraMu.RUnlock()
	return append([]string(nil), w.extra...)
}

// relBeneath is path, within base, relative to it.
func relBeneath(base, path string) string {
	if samePath(path, base) {
		return "."
	}
	return path[len(base)+len(string(filepath.Separator)):]
}

// rootOf is real's base as an os.Root (bases.go; release ends its
// use), for the operations that need more than an open: stats, a mode's
// change.
func (w *Workspace) rootOf(path, real string) (root *os.Root, rel string, release func(), err error) {
	b, rel, err := w.keptBeneath(path, real)
	if err != nil {
		return nil, "", nil, err
	}
	return b.root, rel, b.release, nil
}

// statBeneath stats real reached beneath its base with stat,
// (*os.Root).Stat or (*os.Root).Lstat: a symlink on the way is followed
// only while it stays there.
func (w *Workspace) statBeneath(path, real string, stat func(*os.Root, string) (fs.FileInfo, error)) (fs.FileInfo, error) {
	root, rel, release, err := w.rootOf(path, real)
	if err != nil {
		return nil, err
	}
	defer release()
	fi, err := stat(root, rel)
	if err != nil {
		return nil, beneathError(path, err)
	}
	return fi, nil
}

// errSwapped is what an operation meets when a symbolic link was put in
// its path after the path was resolved: the operation is refused, as the
// link may lead outside the roots.
var errSwapped = errors.New("a symbolic link was put in its path while it was being opened (refused: it may lead outside the workspace roots)")

// beneathError is err, from an operation beneath a base, with the path
// named: a link met on the way (ELOOP, EXDEV from openat2, os.Root's
// "path escapes") is errSwapped, a missing file ErrNotExist.
func beneathError(path string, err error) error {
	var pe *fs.PathError
	inner := err
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	switch {
	case errors.Is(inner, fs.ErrNotExist):
		return &notExistError{path}
	case errors.Is(inner, syscall.ELOOP), errors.Is(inner, syscall.EXDEV), isEscape(inner):
		return fmt.Errorf("%s: %w", path, errSwapped)
	}
	return fmt.Errorf("%s: %w", path, inner)
}

// isEscape reports os.Root's refusal of a path leading out of it, which
// it does not export.
func isEscape(err error) bool {
	return err != nil && strings.HasSuffix(err.Error(), "path escapes from parent")
}
