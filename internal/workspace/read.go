package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Every byte of file content this package reads from disk goes through
// openRegular and readOpened: the file's path is resolved and checked
// against the roots, only a regular file is opened (a device, FIFO or
// socket never is), opening cannot block, the size from stat is checked
// against the caller's limit before a byte is read, no read allocates more
// than that limit, and ctx is checked between chunks.

// MaxFileSize is the largest file the agent reads or changes whole.
const MaxFileSize = 20 << 20

// readChunk is how much one read asks for; cancellation is seen between chunks.
const readChunk = 1 << 20

var (
	// ErrNotRegular is returned for reading anything but a regular file:
	// a directory, device, named pipe or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is returned (as a *TooLargeError) for a file over the
	// caller's size limit.
	ErrTooLarge = errors.New("file too large")
)

// TooLargeError reports a file larger than the limit a read was given:
// Size is the size stat reported, or for a file that grew past the limit
// while being read (Grew), the limit plus one. It matches ErrTooLarge.
type TooLargeError struct {
	Path        string
	Size, Limit int64
	Grew        bool
}

func (e *TooLargeError) Error() string {
	if e.Grew {
		return fmt.Sprintf("reading %s: the file grew past the %s limit while being read", e.Path, FormatSize(e.Limit))
	}
	return fmt.Sprintf("reading %s: the file is %s, over the %s limit", e.Path, FormatSize(e.Size), FormatSize(e.Limit))
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// FormatSize is n bytes in the largest binary unit it reaches.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// notRegularError names what the path is instead; it matches ErrNotRegular.
type notRegularError struct {
	path string
	mode fs.FileMode
}

func (e *notRegularError) Error() string {
	if e.mode.IsDir() {
		return fmt.Sprintf("reading %s: it is a directory", e.path)
	}
	return fmt.Sprintf("reading %s: it is %s, not a regular file", e.path, safefile.DescribeMode(e.mode))
}

func (e *notRegularError) Is(target error) bool { return target == ErrNotRegular }

// resolveInside follows every symlink in the absolute path (keeping
// missing trailing components) and refuses a result outside the roots.
func (w *Workspace) resolveInside(path string) (string, error) {
	return w.resolveNamed(path, path)
}

// resolveNamed is resolveInside for p, an absolute, cleaned form of path,
// the name its errors give.
func (w *Workspace) resolveNamed(path, p string) (string, error) {
	real, err := resolveSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	if w.scopeOf(real) == "" {
		return "", &outsideRootsError{path: path, resolved: real, roots: w.Roots()}
	}
	return real, nil
}

// openRegular opens the regular file at path, which must be absolute:
// symlinks are followed and the target must lie inside the roots.
func (w *Workspace) openRegular(path string) (*os.File, fs.FileInfo, error) {
	real, err := w.resolveInside(path)
	if err != nil {
		return nil, nil, err
	}
	b, rel, err := w.keptBeneath(path, real)
	if err != nil {
		return nil, nil, err
	}
	defer b.release()
	return openResolved(path, b, rel)
}

// openResolved opens rel beneath b (path with its symlinks resolved)
// when it is a regular file; errors name path. It is stat-ed before
// opening, so a device or FIFO is never opened, opened without blocking
// and without following a symlink swapped in since, and fstat-ed after,
// so what was opened is the file that was checked; both through b's
// os.Root, so neither leaves b.
func openResolved(path string, b *baseDir, rel string) (*os.File, fs.FileInfo, error) {
	root := b.root
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil, nil, readError(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &notRegularError{path: path, mode: fi.Mode()}
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|openReadFlags, 0)
	if err != nil {
		return nil, nil, readError(path, err)
	}
	opened, err := f.Stat()
	if err != nil {
		err = fmt.Errorf("reading %s: %w", path, err)
	} else {
		err = confirmOpened(path, fi, opened)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, opened, nil
}

// confirmOpened checks that the file opened at path is the regular file
// stat-ed before, not something swapped in between.
func confirmOpened(path string, checked, opened fs.FileInfo) error {
	if !opened.Mode().IsRegular() {
		return &notRegularError{path: path, mode: opened.Mode()}
	}
	if !os.SameFile(checked, opened) {
		return fmt.Errorf("reading %s: it was replaced while being opened", path)
	}
	return nil
}

// readRegular reads the regular file at path whole (see openRegular),
// refusing one larger than limit bytes (*TooLargeError) before reading.
func (w *Workspace) readRegular(ctx context.Context, path string, limit int64) ([]byte, error) {
	real, err := w.resolveInside(path)
	if err != nil {
		return nil, err
	}
	return w.readResolved(ctx, path, real, limit)
}

// readResolved is readRegular for a path already resolved to real.
func (w *Workspace) readResolved(ctx context.Context, path, real string, limit int64) ([]byte, error) {
	b, rel, err := w.keptBeneath(path, real)
	if err != nil {
		return nil, err
	}
	defer b.release()
	return readResolvedInto(ctx, path, b, rel, limit, nil)
}

// readOpened reads f, whose size stat reported, to its end: never more
// than limit bytes, in chunks, stopping when ctx ends. The content is
// read into buf's storage when it has room for it (a caller reading many
// files in turn reuses one buffer), else into a new one.
func readOpened(ctx context.Context, f io.Reader, path string, size, limit int64, buf []byte) ([]byte, error) {
	if size > limit {
		return nil, &TooLargeError{Path: path, Size: size, Limit: limit}
	}
	// The buffer never grows past limit+1 bytes: the one byte more tells
	// a file that grew past the limit since the stat.
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+1)
	}
	buf = buf[:0]
	for int64(len(buf)) <= limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(limit+1, int64(2*cap(buf))+readChunk))
			copy(grown, buf)
			buf = grown
		}
		want := min(cap(buf), len(buf)+readChunk) - len(buf)
		n, err := f.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if n < want && int64(len(buf)) == size {
			// Short at the size stat-ed: the file ends there, and the
			// read that would say so is spared (a search reads thousands).
			break
		}
	}
	if int64(len(buf)) > limit {
		return nil, &TooLargeError{Path: path, Size: int64(len(buf)), Limit: limit, Grew: true}
	}
	return buf, nil
}

// diskHasBOM reports whether the file on disk starts with a UTF-8 BOM.
func (w *Workspace) diskHasBOM(path string) bool {
	f, _, err := w.openRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [len(bom)]byte
	n, _ := io.ReadFull(f, head[:])
	return string(head[:n]) == bom
}
