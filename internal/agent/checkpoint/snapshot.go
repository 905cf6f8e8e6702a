package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// entry is one file of a snapshot: its git mode, its blob's hash and
// its slash path from the root.
type entry struct {
	mode, hash, path string
	// content is the blob's bytes when they are not a file's on disk (a
	// symbolic link's target, a buffer's text).
	content []byte
}

// snapshotEntries is the workspace as a snapshot holds it. git says
// which paths count (the index's and the untracked ones its ignore
// rules keep, as git add --all would take), but git opens files and
// directories by name, and a command in the workspace can swap a
// directory with a symbolic link leading out meanwhile; so each path is
// only a name here: what it holds is read beneath the root (os.Root,
// which follows no link out of it), a symbolic link met on the way
// fails the snapshot unless it is still there (git leaves out what is
// beyond one), and a path no longer there is left out. A buffer
// takes the place of its regular file's bytes.
func (r shadowRepo) snapshotEntries(ctx context.Context, buffers []buffer) ([]entry, error) {
	out, err := r.git(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	paths := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	slices.Sort(paths)
	paths = slices.Compact(paths)
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace: %w", err)
	}
	defer root.Close()
	objs, err := r.objectsOf(ctx)
	if err != nil {
		return nil, err
	}
	unsaved := map[string][]byte{}
	for _, b := range buffers {
		unsaved[b.path] = b.content
	}
	var entries []entry
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path = strings.TrimSuffix(path, "/") // a nested repository, untracked
		if path == "" {
			continue
		}
		e, err := r.read(ctx, root, objs, path, unsaved)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since git listed it
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if e.mode != "" {
			entries = append(entries, e)
		}
	}
	// The blobs the repository lacks, written: a file is read again, and
	// its entry takes the hash of what was written.
	hashes := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.mode != "160000" {
			hashes = append(hashes, e.hash)
		}
	}
	missing, err := r.missing(ctx, hashes)
	if err != nil {
		return nil, err
	}
	for i, e := range entries {
		if !missing[e.hash] || e.mode == "160000" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.content != nil {
			entries[i].hash, err = objs.writeBytes(e.content)
		} else {
			entries[i].hash, err = writeFile(root, objs, e.path)
		}
		if err != nil {
			return nil, fmt.Errorf("snapshotting %s: %w", e.path, err)
		}
	}
	return entries, nil
}

// read is the entry of path, read beneath root; one of no mode is not
// snapshotted (a special file, a directory that is no repository).
func (r shadowRepo) read(ctx context.Context, root *os.Root, objs *objects, path string, unsaved map[string][]byte) (entry, error) {
	rel := filepath.FromSlash(path)
	fi, err := root.Lstat(rel)
	if err != nil {
		if beyondLink(root, rel) {
			return entry{}, nil // as git add leaves it out
		}
		return entry{}, beneath(err)
	}
	e := entry{path: path}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := root.Readlink(rel)
		if errors.Is(err, syscall.EINVAL) {
			return entry{}, errors.New("it changed from a symbolic link while it was being snapshotted")
		}
		if err != nil {
			return entry{}, beneath(err)
		}
		e.mode, e.content = "120000", []byte(target)
		e.hash, err = objs.hash(bytes.NewReader(e.content), int64(len(e.content)))
		return e, err
	case fi.IsDir():
		// A nested repository is its HEAD commit (a gitlink), as git add
		// makes it; one with no commit yet is left out.
		if _, err := root.Lstat(filepath.Join(rel, ".git")); err != nil {
			return entry{}, nil
		}
		head, err := r.run(ctx, false, r.root, nil, "--git-dir", filepath.Join(r.root, rel, ".git"), "rev-parse", "--verify", "--quiet", "HEAD")
		if err != nil {
			return entry{}, nil
		}
		e.mode, e.hash = "160000", strings.TrimSpace(string(head))
		return e, nil
	case !fi.Mode().IsRegular():
		return entry{}, nil
	}
	f, fi, err := openRegular(root, rel)
	if err != nil || f == nil {
		return entry{}, err
	}
	defer f.Close()
	e.mode = "100644"
	if fi.Mode()&0o100 != 0 {
		e.mode = "100755"
	}
	if content, ok := unsaved[path]; ok {
		e.content = content
		e.hash, err = objs.hash(bytes.NewReader(content), int64(len(content)))
	} else {
		e.hash, err = objs.hash(f, fi.Size())
	}
	return e, err
}

// openRegular opens the regular file rel beneath root, following no link
// put in its place and not blocking on a FIFO; none (nil) when it is no
// regular file.
func openRegular(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, beneath(err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, err // nil: swapped for a special file since the Lstat
	}
	return f, fi, nil
}

// writeFile writes the blob of the file at path, read beneath root
// again, and returns its hash.
func writeFile(root *os.Root, objs *objects, path string) (string, error) {
	f, fi, err := openRegular(root, filepath.FromSlash(path))
	if err == nil && f == nil {
		err = errors.New("it is no longer a regular file")
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	return objs.write(f, fi.Size())
}

// beyondLink reports whether a directory on rel's way is a symbolic
// link now: git lists no file beyond one, but the index may hold one
// from the last snapshot. A link swapped in and out again while rel was
// read is not one, and its error stands.
func beyondLink(root *os.Root, rel string) bool {
	for dir := filepath.Dir(rel); dir != "."; dir = filepath.Dir(dir) {
		if fi, err := root.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// beneath is err, from reaching a path beneath the root, saying so when
// a symbolic link was met leading out of it.
func beneath(err error) error {
	if errors.Is(err, syscall.ELOOP) || strings.HasSuffix(err.Error(), "path escapes from parent") {
		return fmt.Errorf("a symbolic link was put in its path while the workspace was being snapshotted (refused: it may lead outside the workspace): %w", err)
	}
	return err
}
