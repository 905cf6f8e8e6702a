package checkpoint

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// objects writes blobs into the shadow repository from bytes the
// snapshot read itself (git never opens a workspace file): a blob is
// hashed as git names it, the repository asked in one git cat-file
// --batch-check which of a snapshot's blobs it lacks, and each of those
// written as a loose object, as git writes one.
type objects struct {
	dir     string // the repository's objects directory
	newHash func() hash.Hash
	zw      *zlib.Writer
}

// objectsOf is r's object store.
func (r shadowRepo) objectsOf(ctx context.Context) (*objects, error) {
	format, err := r.git(ctx, "rev-parse", "--show-object-format")
	if err != nil {
		return nil, err
	}
	o := &objects{dir: filepath.Join(r.dir, ".git", "objects")}
	switch f := strings.TrimSpace(string(format)); f {
	case "sha1":
		o.newHash = sha1.New
	case "sha256":
		o.newHash = sha256.New
	default:
		return nil, fmt.Errorf("the shadow repository's object format %q is not known", f)
	}
	// Git's own level for loose objects (core.looseCompression).
	o.zw, err = zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// missing is which of hashes the repository does not have.
func (r shadowRepo) missing(ctx context.Context, hashes []string) (map[string]bool, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	out, err := r.gitIn(ctx, []byte(strings.Join(hashes, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	missing := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		if sum, ok := strings.CutSuffix(line, " missing\n"); ok {
			missing[sum] = true
		}
	}
	return missing, nil
}

// hash is the name git gives the blob of r's size bytes; a reader
// holding fewer fails it.
func (o *objects) hash(r io.Reader, size int64) (string, error) {
	return o.copy(io.Discard, r, size)
}

// copy writes the object of the blob of r's size bytes (its header and
// bytes) to w, and returns the blob's hash.
func (o *objects) copy(w io.Writer, r io.Reader, size int64) (string, error) {
	h := o.newHash()
	both := io.MultiWriter(h, w)
	fmt.Fprintf(both, "blob %d\x00", size)
	n, err := io.Copy(both, io.LimitReader(r, size))
	if err != nil {
		return "", err
	}
	if n != size {
		return "", errors.New("it changed while it was being snapshotted")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// write writes the blob of r's size bytes as a loose object, and
// returns its hash: that of the bytes it wrote, whatever was hashed
// before.
func (o *objects) write(r io.Reader, size int64) (string, error) {
	tmp, err := os.CreateTemp(o.dir, "tmp_obj_")
	if err != nil {
		return "", fmt.Errorf("writing an object: %w", err)
	}
	defer os.Remove(tmp.Name()) // once renamed, there is none
	o.zw.Reset(tmp)
	sum, err := o.copy(o.zw, r, size)
	if err == nil {
		err = o.zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Join(o.dir, sum[:2]), 0o755)
	}
	if err == nil {
		dest := filepath.Join(o.dir, sum[:2], sum[2:])
		err = os.Rename(tmp.Name(), dest)
		// Windows refuses to rename over a read-only file, as a loose
		// object is. One already there is the same blob (two files of a
		// snapshot alike, or another checkpoint's): kept, as git does.
		if _, statErr := os.Stat(dest); err != nil && statErr == nil {
			err = nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("writing an object: %w", err)
	}
	return sum, nil
}

// writeBytes is write of b.
func (o *objects) writeBytes(b []byte) (string, error) {
	return o.write(bytes.NewReader(b), int64(len(b)))
}
