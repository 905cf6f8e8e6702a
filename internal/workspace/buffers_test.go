package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// editorBuffers is an editor answering ReadBuffer from its buffers; a
// path it holds none for has no say (ok false) unless err is set.
type editorBuffers struct {
	mu    sync.Mutex
	texts map[string]string
	err   error
	// block makes ReadBuffer wait for ctx to end, as a client that never
	// answers.
	block bool
	asked []string
}

func (b *editorBuffers) ReadBuffer(ctx context.Context, path string) (string, bool, error) {
	b.mu.Lock()
	b.asked = append(b.asked, path)
	text, ok := b.texts[path]
	err, block := b.err, b.block
	b.mu.Unlock()
	if block {
		<-ctx.Done()
		return "", false, errors.New("the request was cancelled")
	}
	if err != nil {
		return "", false, err
	}
	return text, ok, nil
}

func (b *editorBuffers) askedAbout() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.asked)
}

func newBufferedWorkspace(t *testing.T, files map[string]string) (*Workspace, string, *editorBuffers) {
	t.Helper()
	w, root := newTestWorkspace(t, files)
	b := &editorBuffers{texts: map[string]string{}}
	w.SetBuffers(b)
	return w, root, b
}

func TestReadFileSeesTheEditorsBuffer(t *testing.T) {
	w, root, b := newBufferedWorkspace(t, map[string]string{"a.txt": "disk\n", "bom.txt": bom + "disk\n", "plain.txt": "only on disk\n"})
	a, withBOM, plain := filepath.Join(root, "a.txt"), filepath.Join(root, "bom.txt"), filepath.Join(root, "plain.txt")
	b.texts[a] = "unsaved\n"
	// An editor may or may not keep the BOM in its text; the read never
	// does, and reports disk's.
	b.texts[withBOM] = bom + "unsaved with a BOM\n"

	f, err := w.ReadFile(t.Context(), a, MaxFileSize)
	if err != nil || string(f.Content) != "unsaved\n" || f.BOM || f.Open {
		t.Errorf("ReadFile(a.txt) = %q (BOM %v, open %v), %v; want the buffer", f.Content, f.BOM, f.Open, err)
	}
	f, err = w.ReadFile(t.Context(), withBOM, MaxFileSize)
	if err != nil || string(f.Content) != "unsaved with a BOM\n" || !f.BOM {
		t.Errorf("ReadFile(bom.txt) = %q (BOM %v), %v; want the buffer without its BOM, and disk's BOM", f.Content, f.BOM, err)
	}
	// No say: disk.
	f, err = w.ReadFile(t.Context(), plain, MaxFileSize)
	if err != nil || string(f.Content) != "only on disk\n" {
		t.Errorf("ReadFile(plain.txt) = %q, %v; want disk", f.Content, err)
	}
	// An edit is prepared from the buffer, in the buffer's line endings.
	b.texts[a] = "one\r\ntwo\r\n"
	c, err := w.PrepareChange(t.Context(), a, "one\nTWO\n")
	if err != nil || !c.Exists || c.Open || c.Before != "one\r\ntwo\r\n" || c.After != "one\r\nTWO\r\n" {
		t.Errorf("PrepareChange = %+v, %v; want Before from the buffer and \\r\\n kept", c, err)
	}
	// Walks and searches read disk.
	entries, _, err := w.ReadDir(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	asked := len(b.askedAbout())
	for _, e := range entries {
		if e.Path == a {
			f, err := w.ReadEntry(t.Context(), e, MaxFileSize)
			if err != nil || string(f.Content) != "disk\n" {
				t.Errorf("ReadEntry(a.txt) = %q, %v; want disk", f.Content, err)
			}
		}
	}
	if n := len(b.askedAbout()); n != asked {
		t.Errorf("ReadEntry asked the editor")
	}
}

func TestOpenDocumentsComeBeforeTheEditorsBuffers(t *testing.T) {
	w, root, b := newBufferedWorkspace(t, map[string]string{"a.txt": "disk\n"})
	a := filepath.Join(root, "a.txt")
	b.texts[a] = "buffer\n"
	w.Documents().Open(Document{Path: a, Version: 3, Text: "document\n"})
	f, err := w.ReadFile(t.Context(), a, MaxFileSize)
	if err != nil || string(f.Content) != "document\n" || !f.Open {
		t.Errorf("ReadFile = %q (open %v), %v; want the open document", f.Content, f.Open, err)
	}
	if asked := b.askedAbout(); len(asked) != 0 {
		t.Errorf("the editor was asked about %v", asked)
	}
}

// The editor is asked only about a path a read of disk accepts, and only
// about text.
func TestTheEditorIsAskedOnlyAboutTextFilesDiskCanRead(t *testing.T) {
	w, root, b := newBufferedWorkspace(t, map[string]string{
		"binary":  "PNG\x00\x01\x02",
		"latin1":  "caf\xe9\n",
		"big":     strings.Repeat("x", 100),
		"dir/":    "",
		"ok.txt":  "disk\n",
		"ok2.txt": "disk\n",
	})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "s3cret"})
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "link"))
	for _, name := range []string{"binary", "latin1", "big", "dir", "link", "missing"} {
		b.texts[filepath.Join(root, name)] = "from the editor"
	}
	b.texts[filepath.Join(outside, "secret")] = "from the editor"

	for _, c := range []struct {
		name    string
		limit   int64
		want    string // content; "" for an error
		wantErr error
	}{
		{"binary", MaxFileSize, "PNG\x00\x01\x02", nil},
		{"latin1", MaxFileSize, "caf\xe9\n", nil},
		{"big", 50, "", ErrTooLarge},
		{"dir", MaxFileSize, "", ErrNotRegular},
		{"link", MaxFileSize, "", ErrOutsideRoots},
		{"missing", MaxFileSize, "", ErrNotExist},
	} {
		f, err := w.ReadFile(t.Context(), filepath.Join(root, c.name), c.limit)
		switch {
		case c.wantErr != nil && !errors.Is(err, c.wantErr):
			t.Errorf("ReadFile(%s) = %q, %v; want %v", c.name, f.Content, err, c.wantErr)
		case c.wantErr == nil && (err != nil || string(f.Content) != c.want):
			t.Errorf("ReadFile(%s) = %q, %v; want %q from disk", c.name, f.Content, err, c.want)
		}
		if c.limit != MaxFileSize {
			continue // PrepareChange's limit is MaxFileSize
		}
		change, err := w.PrepareChange(t.Context(), filepath.Join(root, c.name), "x")
		switch {
		case c.wantErr == nil && (err != nil || change.Before != c.want):
			t.Errorf("PrepareChange(%s): Before %q, %v; want %q from disk", c.name, change.Before, err, c.want)
		case errors.Is(c.wantErr, ErrNotExist) && (err != nil || change.Exists):
			t.Errorf("PrepareChange(%s): %+v, %v; want a new file", c.name, change, err)
		case c.wantErr != nil && !errors.Is(c.wantErr, ErrNotExist) && !errors.Is(err, c.wantErr):
			t.Errorf("PrepareChange(%s): %v, want %v", c.name, err, c.wantErr)
		}
	}
	if asked := b.askedAbout(); len(asked) != 0 {
		t.Errorf("the editor was asked about %v", asked)
	}

	// The editor's answer is held to the limit too.
	ok := filepath.Join(root, "ok.txt")
	b.texts[ok] = strings.Repeat("y", 100)
	var tooLarge *TooLargeError
	if _, err := w.ReadFile(t.Context(), ok, 50); !errors.As(err, &tooLarge) || tooLarge.Size != 100 || tooLarge.Limit != 50 {
		t.Errorf("a buffer over the limit: %v, want a TooLargeError of 100 bytes over 50", err)
	}
	if _, err := w.PrepareChange(t.Context(), ok, "x"); err != nil {
		t.Errorf("a buffer within MaxFileSize: %v", err)
	}
}

// An editor that fails to read a file disk has fails the read: falling
// back to disk could show the model text other than the user's.
func TestTheEditorsErrorFailsTheRead(t *testing.T) {
	w, root, b := newBufferedWorkspace(t, map[string]string{"a.txt": "disk\n"})
	a := filepath.Join(root, "a.txt")
	b.err = errors.New("fs/read_text_file: the editor is busy")
	f, err := w.ReadFile(t.Context(), a, MaxFileSize)
	if err == nil || !strings.Contains(err.Error(), "reading "+a+" through the editor: fs/read_text_file: the editor is busy") {
		t.Errorf("ReadFile = %q, %v; want the editor's error", f.Content, err)
	}
	if _, err := w.PrepareChange(t.Context(), a, "x"); err == nil || !strings.Contains(err.Error(), "the editor is busy") {
		t.Errorf("PrepareChange: %v; want the editor's error", err)
	}
}

func TestAReadWaitingForTheEditorEndsWithItsContext(t *testing.T) {
	w, root, b := newBufferedWorkspace(t, map[string]string{"a.txt": "disk\n"})
	b.block = true
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := w.ReadFile(ctx, filepath.Join(root, "a.txt"), MaxFileSize)
		errc <- err
	}()
	for len(b.askedAbout()) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a read cancelled while the editor was asked: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read went on after its context ended")
	}
}

func TestIsText(t *testing.T) {
	for s, want := range map[string]bool{"": true, "héllo\r\n\t": true, "a\x00b": false, "caf\xe9": false} {
		if IsText(s) != want || IsText([]byte(s)) != want {
			t.Errorf("IsText(%q) = %v, %v; want %v", s, IsText(s), IsText([]byte(s)), want)
		}
	}
}
