package checkpoint

import (
	"bufio"
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
	"os/exec"
	"path/filepath"
	"strings"
)

// objects writes blobs into the shadow repository from bytes the
// snapshot read itself (git never opens a workspace file): each blob is
// hashed as git hashes it, asked of a running git cat-file --batch-check
// whether the repository has it, and otherwise written as a loose
// object, as git writes one.
type objects struct {
	dir     string // the repository's objects directory
	newHash func() hash.Hash
	check   *exec.Cmd
	ask     io.WriteCloser
	answers *bufio.Reader
}

// openObjects starts the repository's existence checks; close ends them.
func (r shadowRepo) openObjects(ctx context.Context) (*objects, error) {
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
	o.check = exec.CommandContext(ctx, "git", "cat-file", "--batch-check")
	o.check.Dir = r.root
	o.check.Env = r.env(true)
	if o.ask, err = o.check.StdinPipe(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	out, err := o.check.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if err := o.check.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	o.answers = bufio.NewReader(out)
	return o, nil
}

func (o *objects) close() {
	o.ask.Close()
	o.check.Wait() // its answers were all read; how it ended changes nothing
}

// store writes the blob of r's size bytes, unless the repository has it,
// and returns its hash. r is read twice (to hash, then to write), and
// must hold the same bytes both times: a file that changed meanwhile
// fails the snapshot rather than commit a blob named for other bytes.
func (o *objects) store(r io.ReaderAt, size int64) (string, error) {
	sum, err := o.hash(io.NewSectionReader(r, 0, size), size, io.Discard)
	if err != nil {
		return "", err
	}
	if _, err := fmt.Fprintf(o.ask, "%s\n", sum); err != nil {
		return "", fmt.Errorf("git cat-file: %w", err)
	}
	answer, err := o.answers.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("git cat-file: %w", err)
	}
	if !strings.HasSuffix(answer, " missing\n") {
		return sum, nil
	}
	path := filepath.Join(o.dir, sum[:2], sum[2:])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("writing an object: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "tmp_obj_")
	if err != nil {
		return "", fmt.Errorf("writing an object: %w", err)
	}
	defer os.Remove(tmp.Name()) // once renamed, there is none
	zw := zlib.NewWriter(tmp)
	again, err := o.hash(io.NewSectionReader(r, 0, size), size, zw)
	if err == nil && again != sum {
		err = errors.New("it changed while it was being snapshotted")
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return "", fmt.Errorf("writing an object: %w", err)
	}
	return sum, nil
}

// hash is the hash of the blob of r's size bytes, as git names it, with
// the object (its header and bytes) also written to w.
func (o *objects) hash(r io.Reader, size int64, w io.Writer) (string, error) {
	h := o.newHash()
	both := io.MultiWriter(h, w)
	fmt.Fprintf(both, "blob %d\x00", size)
	n, err := io.Copy(both, r)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", errors.New("it changed while it was being snapshotted")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// storeBytes is store of b.
func (o *objects) storeBytes(b []byte) (string, error) {
	return o.store(bytes.NewReader(b), int64(len(b)))
}
