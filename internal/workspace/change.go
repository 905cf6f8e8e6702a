package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// ErrStale is returned by WriteFile when the file on disk is no longer
// what the change was prepared from, so writing would lose someone's edit.
var ErrStale = errors.New("the file changed since the change was prepared")

// PrepareChange builds the FileChange for writing newText (LF or any line
// endings, as the model wrote it) to path: Before from the overlay, else
// as ReadFile reads it (the editor's buffer through Buffers, or disk),
// After with the file's existing line endings and BOM preserved.
//
// Exists reports whether an open document or a file on disk holds path.
// A file that mostly uses \r\n gets its lone \n turned into \r\n; other
// text is kept as written. A BOM at the start of newText is moved to BOM.
func (w *Workspace) PrepareChange(ctx context.Context, path, newText string) (FileChange, error) {
	if err := w.checkResolved(path); err != nil {
		return FileChange{}, err
	}
	base, _, err := w.beneathOf(path, filepath.Clean(path))
	if err != nil {
		return FileChange{}, err
	}
	change := FileChange{Path: path, base: base, writes: w.writes}
	if doc, ok := w.docs.Get(path); ok {
		change.Exists, change.Open, change.Version = true, true, doc.Version
		change.Before = doc.Text
		change.HadBOM = w.diskHasBOM(path)
	} else {
		data, hadBOM, err := w.readChanged(ctx, path)
		switch {
		case errors.Is(err, ErrNotExist):
		case err != nil:
			return FileChange{}, fmt.Errorf("preparing a change: %w", err)
		default:
			change.Exists = true
			change.Before, change.HadBOM = string(data), hadBOM
		}
	}
	after, addsBOM := strings.CutPrefix(newText, bom)
	change.BOM = change.HadBOM || addsBOM
	if change.Exists && usesCRLF(change.Before) {
		after = toCRLF(after)
	}
	change.After = after
	return change, nil
}

// readChanged reads the file a change is prepared from, as ReadFile does
// when no document is open.
func (w *Workspace) readChanged(ctx context.Context, path string) ([]byte, bool, error) {
	real, err := w.resolveInside(path)
	if err != nil {
		return nil, false, err
	}
	return w.readText(ctx, path, real, MaxFileSize)
}

// usesCRLF reports whether most of text's line breaks are \r\n.
func usesCRLF(text string) bool {
	crlf := strings.Count(text, "\r\n")
	return crlf > 0 && crlf >= strings.Count(text, "\n")-crlf
}

// toCRLF turns every \n not already preceded by \r into \r\n.
func toCRLF(text string) string {
	var b strings.Builder
	b.Grow(len(text) + strings.Count(text, "\n"))
	for {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:nl])
		if nl == 0 || text[nl-1] != '\r' {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		text = text[nl+1:]
	}
}

// WriteFile writes a change to disk atomically (temp file + rename),
// creating parent directories, keeping the file's permission bits (a new
// file and directory get 0o666 and 0o777 less the umask, as with any Unix
// tool) and re-adding the BOM. Unless the change came from an open document, it
// checks that disk still holds change.Before (or, for a new file,
// nothing) and returns ErrStale otherwise.
//
// The check runs once the new content is in its temporary file, just
// before the rename, and the path's write lock (HoldPath) is held from
// before the check to after the rename: of two changes of one file
// prepared from the same text, written at once, the second is stale,
// never written over the first; a program that takes no lock (an editor
// saving) can still slip in only between that check and the rename.
//
// Every step reaches the file beneath the root PrepareChange found it in
// (beneath.go): the directories are made, and the file's directory is
// opened, through that root's handle, following no symlink out of it;
// the check, the temporary file and the rename go through the
// directory's handle. A change PrepareChange did not make is refused.
func WriteFile(ctx context.Context, change FileChange, content string) error {
	path := change.Path
	if !filepath.IsAbs(path) {
		return fmt.Errorf("writing %s: the path is not absolute", path)
	}
	path = filepath.Clean(path)
	if change.base == "" || change.writes == nil || !within(change.base, path) || samePath(path, change.base) {
		return fmt.Errorf("writing %s: the change was not prepared by the workspace", path)
	}
	release, err := change.writes.lock(ctx, path)
	if err != nil {
		return fmt.Errorf("writing %s: waiting for another write of it: %w", path, err)
	}
	defer release()
	dir, name, err := openParent(change.base, relBeneath(change.base, path), true)
	if err != nil {
		return fmt.Errorf("writing %w", beneathError(path, err))
	}
	defer dir.Close()
	if writeDirOpened != nil {
		writeDirOpened()
	}
	if _, err := lstatWritten(dir, name, path); err != nil {
		return err
	}
	var unchanged func() error
	var checkErr error // the check's, which says what it was doing
	if !change.Open {
		unchanged = func() error {
			onDisk, err := lstatWritten(dir, name, path)
			if err == nil {
				err = checkUnchanged(ctx, change, dir, name, onDisk)
			}
			if err == nil && writeChecked != nil {
				writeChecked()
			}
			checkErr = err
			return err
		}
	}
	content = strings.TrimPrefix(content, bom)
	if change.BOM {
		content = bom + content
	}
	if err := safefile.WriteIn(dir, name, []byte(content), unchanged); err != nil {
		if checkErr != nil {
			return checkErr
		}
		return fmt.Errorf("writing %w", beneathError(path, err))
	}
	return nil
}

// lstatWritten reports whether name in dir, the file WriteFile writes at
// path, exists, refusing a directory or a symlink there.
func lstatWritten(dir *os.Root, name, path string) (bool, error) {
	fi, err := dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("writing %w", beneathError(path, err))
	case fi.IsDir():
		return false, fmt.Errorf("writing %s: it is a directory", path)
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, fmt.Errorf("writing %s: %w", path, errSwapped)
	}
	return true, nil
}

// RemoveFile deletes the file of a change PrepareChange made (a revert
// of a file the agent created) when disk still holds change.Before, and
// returns ErrStale (wrapped, saying why) when it does not; a file gone
// already is no error. As WriteFile, it reaches the file through its
// directory's handle, beneath the root, and holds the path's write lock
// from the check to the deletion.
func RemoveFile(ctx context.Context, change FileChange) error {
	path := filepath.Clean(change.Path)
	if change.base == "" || change.writes == nil || !within(change.base, path) || samePath(path, change.base) {
		return fmt.Errorf("deleting %s: the change was not prepared by the workspace", path)
	}
	release, err := change.writes.lock(ctx, path)
	if err != nil {
		return fmt.Errorf("deleting %s: waiting for another write of it: %w", path, err)
	}
	defer release()
	dir, name, err := openParent(change.base, relBeneath(change.base, path), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting %w", beneathError(path, err))
	}
	defer dir.Close()
	fi, err := dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("deleting %w", beneathError(path, err))
	case !fi.Mode().IsRegular():
		return fmt.Errorf("deleting %s: it is no longer a regular file: %w", path, ErrStale)
	}
	change.Exists = true
	if err := checkUnchanged(ctx, change, dir, name, true); err != nil {
		return err
	}
	if err := dir.Remove(name); err != nil {
		return fmt.Errorf("deleting %w", beneathError(path, err))
	}
	return nil
}

// writeDirOpened, when set (by a test), is called once WriteFile holds
// its file's directory handle: what it does to the path by name (a
// directory swapped for a symlink leading out) must not reach the
// check, the temporary file or the rename.
var writeDirOpened func()

// writeChecked, when set (by a test), is called once WriteFile's check
// has passed, just before the rename.
var writeChecked func()

// openParent opens the directory holding rel beneath base, made first
// (0o777 less the umask) when missing and create is set, and returns it
// with rel's last name. It walks rel's directories a name at a time from
// base's handle (openChildDir), following no symbolic link, not even one
// that stays beneath base: rel comes from a resolved path, which holds
// none, so a link on the way was put there since the path was checked,
// and may lead to a protected directory of the same root (.git/hooks,
// .gemini) that the check never saw (issue 94). The directory returned
// is the one the checked path named.
func openParent(base, rel string, create bool) (*os.Root, string, error) {
	root, err := os.OpenRoot(base)
	if create && errors.Is(err, fs.ErrNotExist) {
		// An allowed directory (a plans directory) is made on first
		// write; a root always exists.
		if err = os.MkdirAll(base, 0o777); err == nil {
			root, err = os.OpenRoot(base)
		}
	}
	if err != nil {
		return nil, "", err
	}
	dir := root
	if parent := filepath.Dir(rel); parent != "." {
		for _, name := range strings.Split(parent, string(filepath.Separator)) {
			next, err := openChildDir(dir, name, create)
			dir.Close()
			if err != nil {
				return nil, "", err
			}
			dir = next
		}
	}
	return dir, filepath.Base(rel), nil
}

// openChildDir opens the directory name in dir, made first when missing
// and create is set. A symbolic link there is refused (errSwapped), and
// the directory opened is confirmed to be the one lstat saw, so a link
// swapped in between the two is refused too rather than followed.
func openChildDir(dir *os.Root, name string, create bool) (*os.Root, error) {
	seen, err := dir.Lstat(name)
	if create && errors.Is(err, fs.ErrNotExist) {
		if err = dir.Mkdir(name, 0o777); err == nil || errors.Is(err, fs.ErrExist) {
			seen, err = dir.Lstat(name)
		}
	}
	switch {
	case err != nil:
		return nil, err
	case seen.Mode()&fs.ModeSymlink != 0:
		return nil, errSwapped
	case !seen.IsDir():
		return nil, fmt.Errorf("%s is %s, not a directory", name, safefile.DescribeMode(seen.Mode()))
	}
	if writeWalkSaw != nil {
		writeWalkSaw(name)
	}
	sub, err := dir.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	opened, err := sub.Stat(".")
	if err == nil && !os.SameFile(seen, opened) {
		err = errSwapped
	}
	if err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// checkUnchanged compares disk with what the change was prepared from,
// reading name in dir as every read does: a regular file only, opened
// without blocking or following a symlink, bounded.
func checkUnchanged(ctx context.Context, change FileChange, dir *os.Root, name string, onDisk bool) error {
	switch {
	case !change.Exists && onDisk:
		return fmt.Errorf("writing %s: it was created since the change was prepared: %w", change.Path, ErrStale)
	case change.Exists && !onDisk:
		return fmt.Errorf("writing %s: it was deleted since the change was prepared: %w", change.Path, ErrStale)
	case !change.Exists:
		return nil
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|openReadFlags, 0)
	if err != nil {
		return fmt.Errorf("writing %w", readError(change.Path, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("writing %s: %w", change.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("writing %w", &notRegularError{path: change.Path, mode: fi.Mode()})
	}
	data, err := readOpened(ctx, f, change.Path, fi.Size(), MaxFileSize, nil)
	if err != nil {
		return fmt.Errorf("writing %s: %w", change.Path, err)
	}
	if strings.TrimPrefix(string(data), bom) != change.Before {
		return fmt.Errorf("writing %s: it was modified since the change was prepared: %w", change.Path, ErrStale)
	}
	return nil
}

// SetMode sets the permission bits of the regular file at path
// (resolved; a symlink is refused) to what perm makes of them, and
// reports whether they changed. The file is stat-ed and opened in its
// directory, reached from its root as WriteFile reaches it (no link
// followed on the way), confirmed to be the file stat-ed, and changed
// through that descriptor (fchmod), never by name.
func (w *Workspace) SetMode(path string, perm func(fs.FileMode) fs.FileMode) (bool, error) {
	if err := w.checkResolved(path); err != nil {
		return false, err
	}
	path = filepath.Clean(path)
	base, rel, err := w.beneathOf(path, path)
	if err != nil {
		return false, err
	}
	dir, name, err := openParent(base, rel, false)
	if err != nil {
		return false, beneathError(path, err)
	}
	defer dir.Close()
	fi, err := dir.Lstat(name)
	if err != nil {
		return false, beneathError(path, err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%s is %s, not a regular file", path, safefile.DescribeMode(fi.Mode()))
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|openReadFlags, 0)
	if err != nil {
		return false, beneathError(path, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	if !os.SameFile(fi, opened) {
		return false, fmt.Errorf("%s was replaced while being opened", path)
	}
	want := perm(opened.Mode().Perm())
	if want == opened.Mode().Perm() {
		return false, nil
	}
	if err := f.Chmod(want); err != nil {
		return false, fmt.Errorf("changing the mode of %s: %w", path, err)
	}
	return true, nil
}

// writeWalkSaw, when set (by a test), is called with each directory
// name WriteFile's walk has looked at, before it opens it.
var writeWalkSaw func(name string)
