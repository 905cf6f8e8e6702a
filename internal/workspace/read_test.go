package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// finishWithin fails the test when f does not return within d: a read that
// blocks must fail the test, not hang it.
func finishWithin[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
		panic("unreachable")
	}
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func readErr(t *testing.T, w *Workspace, path string) error {
	t.Helper()
	return finishWithin(t, 5*time.Second, func() error {
		_, err := w.ReadFile(context.Background(), path, MaxFileSize)
		return err
	})
}

func TestReadFileRefusesSymlinksLeavingTheRoots(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "s3cret"})
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "link"))
	symlink(t, "/dev/zero", filepath.Join(root, "zero"))
	// The path is lexically inside the root, as a walk reports it.
	for _, name := range []string{"link", "zero"} {
		if err := readErr(t, w, filepath.Join(root, name)); !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("reading %s: %v, want ErrOutsideRoots", name, err)
		}
	}
	// An open document does not let a read through either.
	w.Documents().Open(Document{Path: filepath.Join(root, "link"), Text: "buffer"})
	if err := readErr(t, w, filepath.Join(root, "link")); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("reading a link to outside, open in the editor: %v", err)
	}
}

func TestReadFileChecksTheSizeBeforeReading(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"small": "12345"})
	sparse := filepath.Join(root, "sparse")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 2<<30); err != nil {
		t.Fatal(err)
	}
	var err error
	if n := allocated(func() { err = readErr(t, w, sparse) }); n > 1<<20 {
		t.Errorf("refusing a 2 GiB file allocated %d bytes", n)
	}
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || !errors.Is(err, ErrTooLarge) || tooLarge.Size != 2<<30 || tooLarge.Limit != MaxFileSize {
		t.Fatalf("reading a 2 GiB file: %v", err)
	}
	if want := "the file is 2.0 GiB, over the 20.0 MiB limit"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if _, err := w.PrepareChange(t.Context(), sparse, "x"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("PrepareChange of a 2 GiB file: %v", err)
	}

	// The limit is the caller's, and holds for open documents too.
	small := filepath.Join(root, "small")
	if _, err := w.ReadFile(context.Background(), small, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("5 bytes with a limit of 4: %v", err)
	}
	if f, err := w.ReadFile(context.Background(), small, 5); err != nil || string(f.Content) != "12345" {
		t.Errorf("5 bytes with a limit of 5: %q, %v", f.Content, err)
	}
	w.Documents().Open(Document{Path: small, Text: "a longer buffer"})
	if _, err := w.ReadFile(context.Background(), small, 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("an open document over the limit: %v", err)
	}
}

// endless is a file that keeps growing while it is read.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

func TestReadNeverHoldsMoreThanTheLimit(t *testing.T) {
	const limit = 4 << 20
	var err error
	n := allocated(func() {
		err = finishWithin(t, 5*time.Second, func() error {
			_, err := readOpened(context.Background(), endless{}, "growing", 10, limit, nil)
			return err
		})
	})
	if !errors.Is(err, ErrTooLarge) || err.Error() != "reading growing: the file grew past the 4.0 MiB limit while being read" {
		t.Fatalf("reading a file that grows past the limit: %v", err)
	}
	// Growing the buffer from the stat size to the limit+1 it stops at
	// allocates less than twice the limit in all.
	if n > 2*limit+readChunk {
		t.Errorf("reading a file that grows past a %d-byte limit allocated %d bytes", limit, n)
	}
	data, err := readOpened(context.Background(), strings.NewReader("grew a bit"), "p", 3, limit, nil)
	if err != nil || string(data) != "grew a bit" {
		t.Errorf("a file that grew within the limit: %q, %v", data, err)
	}
}

// cancelAfterFirstRead is a long file whose reader cancels ctx once read from.
type cancelAfterFirstRead struct{ cancel context.CancelFunc }

func (r cancelAfterFirstRead) Read(p []byte) (int, error) {
	r.cancel()
	return len(p), nil
}

func TestReadStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, err := readOpened(ctx, cancelAfterFirstRead{cancel}, "long", 8*readChunk, 16*readChunk, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("read cancelled after its first chunk: %v", err)
	}

	w, root := newTestWorkspace(t, map[string]string{"a": "x"})
	if _, err := w.ReadFile(ctx, filepath.Join(root, "a"), MaxFileSize); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with a cancelled context: %v", err)
	}
}

func TestReadFileThroughASymlinkLoop(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	symlink(t, "loop", filepath.Join(root, "loop"))
	err := readErr(t, w, filepath.Join(root, "loop"))
	if err == nil || errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), "loop") {
		t.Errorf("reading loop -> loop: %v", err)
	}
}

func TestDiskHasBOMReadsOnlyRegularFilesInside(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"bom": "\uFEFFx"})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"bom": "\uFEFFx"})
	symlink(t, filepath.Join(outside, "bom"), filepath.Join(root, "out"))
	if !w.diskHasBOM(filepath.Join(root, "bom")) {
		t.Error("a BOM inside the root is not seen")
	}
	if w.diskHasBOM(filepath.Join(root, "out")) {
		t.Error("a file outside the roots was read")
	}
}

func TestReadOpenedReadsInChunks(t *testing.T) {
	// A reader that returns less than asked must still be read to its end.
	data, err := readOpened(context.Background(), io.MultiReader(strings.NewReader("ab"), strings.NewReader("cd")), "p", 4, 10, nil)
	if err != nil || string(data) != "abcd" {
		t.Errorf("read %q, %v", data, err)
	}
}

// ReadEntryInto reads into the caller's storage while it has room, and
// hands back bigger storage when it had not.
func TestReadEntryIntoReusesTheCallersBuffer(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"small": "abc", "big": strings.Repeat("x", 100), "bom": "\uFEFFhi"})
	entry := func(name string) DirEntry { return DirEntry{Name: name, Path: filepath.Join(root, name)} }
	buf := make([]byte, 0, 16)
	storage := &buf[:1][0]
	f, err := w.ReadEntryInto(t.Context(), entry("small"), MaxFileSize, &buf)
	if err != nil || string(f.Content) != "abc" || &buf[0] != storage {
		t.Fatalf("small: %q, %v; read into the caller's storage: %v", f.Content, err, &buf[0] == storage)
	}
	if f, err = w.ReadEntryInto(t.Context(), entry("big"), MaxFileSize, &buf); err != nil || len(f.Content) != 100 || cap(buf) < 100 {
		t.Fatalf("big: %d bytes, %v; storage now %d", len(f.Content), err, cap(buf))
	}
	if f, err = w.ReadEntryInto(t.Context(), entry("bom"), MaxFileSize, &buf); err != nil || string(f.Content) != "hi" || !f.BOM || cap(buf) < 100 {
		t.Fatalf("bom: %q BOM %v, %v; storage %d", f.Content, f.BOM, err, cap(buf))
	}
}

// countingReader reads data, then says EOF; reads counts the calls.
type countingReader struct {
	data  []byte
	reads int
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.reads++
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// A file that is the size it was stat-ed is read in one call: the short
// read at that size is its end. One that grew since is still read on to
// its end (and refused past the limit), one that shrank to its end.
func TestReadOpenedStopsAtTheSizeStated(t *testing.T) {
	ctx := context.Background()
	content := []byte("hello, world\n")
	r := &countingReader{data: content}
	got, err := readOpened(ctx, r, "f", int64(len(content)), MaxFileSize, nil)
	if err != nil || string(got) != string(content) || r.reads != 1 {
		t.Errorf("as stat-ed: %q, %v in %d reads; want the content in 1", got, err, r.reads)
	}
	grown := []byte("hello, world\nand more\n")
	r = &countingReader{data: grown}
	got, err = readOpened(ctx, r, "f", int64(len(content)), MaxFileSize, nil)
	if err != nil || string(got) != string(grown) {
		t.Errorf("grown since the stat: %q, %v; want %q", got, err, grown)
	}
	r = &countingReader{data: grown}
	var tooLarge *TooLargeError
	if _, err := readOpened(ctx, r, "f", int64(len(content)), int64(len(content)), nil); !errors.As(err, &tooLarge) || !tooLarge.Grew {
		t.Errorf("grown past the limit: %v, want a TooLargeError that grew", err)
	}
	r = &countingReader{data: content[:4]}
	got, err = readOpened(ctx, r, "f", int64(len(content)), MaxFileSize, nil)
	if err != nil || string(got) != "hell" {
		t.Errorf("shrunk since the stat: %q, %v", got, err)
	}
}
