package fetchsource

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CopyDir copies the directory src into dst, which it creates (with its
// parents) when missing, as Node's fs.cp(src, dst, {recursive: true})
// does: files with their modes, directories, symbolic links as links.
// Everything copied is then made writable (and for a directory,
// searchable) by its owner, as Gemini CLI's copyExtension leaves it, so
// the copy can be updated and removed. Anything else (a FIFO, a device,
// a socket) is refused: reading one could block.
func CopyDir(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("copying %s: not a directory", src)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copying %s: %w", path, err)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("copying %s: %w", path, err)
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o700); err != nil {
				return fmt.Errorf("copying %s: %w", path, err)
			}
			return os.Chmod(target, mode.Perm()|0o700)
		case mode&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return fmt.Errorf("copying %s: %w", path, err)
			}
			if err := os.Symlink(link, target); err != nil {
				return fmt.Errorf("copying %s: %w", path, err)
			}
			return nil
		case mode.IsRegular():
			return copyFile(path, target, mode.Perm()|0o600)
		default:
			return fmt.Errorf("copying %s: it is not a regular file, a directory or a link (%s)", path, mode.Type())
		}
	})
}

// copyFile copies the regular file src to dst, created with perm.
func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	// The umask may have taken bits from perm; the copy keeps the source's.
	return os.Chmod(dst, perm)
}
