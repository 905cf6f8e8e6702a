package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

func readRaw(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestPrepareChangeAndWriteFilePreserveBOMAndCRLF(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{
		"crlf.txt": "\uFEFFone\r\ntwo\r\n",
		"lf.txt":   "one\ntwo\n",
	})

	path := filepath.Join(root, "crlf.txt")
	c, err := w.PrepareChange(t.Context(), path, "one\nTWO\r\nthree\n")
	if err != nil {
		t.Fatal(err)
	}
	want := FileChange{Path: path, Exists: true, Before: "one\r\ntwo\r\n", After: "one\r\nTWO\r\nthree\r\n", BOM: true, HadBOM: true, base: root, writes: w.writes}
	if c != want {
		t.Fatalf("change = %+v\nwant %+v", c, want)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path); got != "\uFEFFone\r\nTWO\r\nthree\r\n" {
		t.Fatalf("written %q", got)
	}

	path = filepath.Join(root, "lf.txt")
	c, err = w.PrepareChange(t.Context(), path, "one\r\nmixed\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.After != "one\r\nmixed\n" || c.BOM || !c.Exists {
		t.Fatalf("LF file: %+v", c)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path); got != "one\r\nmixed\n" {
		t.Fatalf("written %q", got)
	}
}

func TestPrepareChangeNewFile(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	path := filepath.Join(root, "a", "b", "new.txt")
	c, err := w.PrepareChange(t.Context(), path, "x\r\ny\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Exists || c.Before != "" || c.After != "x\r\ny\n" || c.Open {
		t.Fatalf("new file change: %+v", c)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path); got != "x\r\ny\n" {
		t.Fatalf("written %q", got)
	}
	// Windows has no file modes: only the read-only flag, which a new
	// file has not.
	if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode: %v, %v", fi, err)
	}

	c, err = w.PrepareChange(t.Context(), filepath.Join(root, "bom.txt"), "\uFEFFhi")
	if err != nil || !c.BOM || c.After != "hi" {
		t.Fatalf("model-written BOM: %+v, %v", c, err)
	}
	if _, err := w.PrepareChange(t.Context(), filepath.Join(root, "a"), "x"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("change to a directory: %v", err)
	}
}

func TestPrepareChangeFromOpenDocument(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "\uFEFFdisk\r\n"})
	path := filepath.Join(root, "a.txt")
	w.Documents().Open(Document{Path: path, Version: 4, Text: "buffer\r\nline\r\n"})
	c, err := w.PrepareChange(t.Context(), path, "buffer\nnew\n")
	if err != nil {
		t.Fatal(err)
	}
	want := FileChange{Path: path, Exists: true, Before: "buffer\r\nline\r\n", After: "buffer\r\nnew\r\n", BOM: true, HadBOM: true, Open: true, Version: 4, base: root, writes: w.writes}
	if c != want {
		t.Fatalf("change = %+v\nwant %+v", c, want)
	}

	unsaved := filepath.Join(root, "unsaved.txt")
	w.Documents().Open(Document{Path: unsaved, Version: 1, Text: "draft\n"})
	c, err = w.PrepareChange(t.Context(), unsaved, "final\n")
	if err != nil || !c.Exists || !c.Open || c.Before != "draft\n" || c.BOM {
		t.Fatalf("unsaved document change: %+v, %v", c, err)
	}
}

func TestWriteFileKeepsPermissions(t *testing.T) {
	platformtest.Unix(t, "file modes")
	w, root := newTestWorkspace(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	path := filepath.Join(root, "run.sh")
	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	c, err := w.PrepareChange(t.Context(), path, "#!/bin/sh\necho hi\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode after write: %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteFileRefusesStaleChanges(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "v1\n"})
	path := filepath.Join(root, "a.txt")
	c, err := w.PrepareChange(t.Context(), path, "mine\n")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"a.txt": "someone else's\n"})
	if err := WriteFile(t.Context(), c, c.After); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "modified") {
		t.Fatalf("modified file: %v", err)
	}
	if got := readRaw(t, path); got != "someone else's\n" {
		t.Fatalf("stale write clobbered the file: %q", got)
	}

	newPath := filepath.Join(root, "new.txt")
	c, err = w.PrepareChange(t.Context(), newPath, "mine\n")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"new.txt": "theirs\n"})
	if err := WriteFile(t.Context(), c, c.After); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "created") {
		t.Fatalf("file created meanwhile: %v", err)
	}

	c, err = w.PrepareChange(t.Context(), path, "mine\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(t.Context(), c, c.After); !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "deleted") {
		t.Fatalf("file deleted meanwhile: %v", err)
	}

	// A change from an open document is checked by the editor, not disk.
	w.Documents().Open(Document{Path: newPath, Version: 1, Text: "buffer\n"})
	c, err = w.PrepareChange(t.Context(), newPath, "from buffer\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatalf("open document change: %v", err)
	}
}

func TestWriteFileWritesGivenContent(t *testing.T) {
	// The user may edit the proposal before accepting; content wins over After.
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "old\n"})
	path := filepath.Join(root, "a.txt")
	c, err := w.PrepareChange(t.Context(), path, "proposed\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(t.Context(), c, "accepted with edits\n"); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, path); got != "accepted with edits\n" {
		t.Fatalf("written %q", got)
	}
	if err := WriteFile(t.Context(), FileChange{Path: "rel.txt"}, "x"); err == nil {
		t.Fatal("relative path written")
	}
}

func TestUsesCRLF(t *testing.T) {
	tests := map[string]bool{
		"":                 false,
		"single line":      false,
		"a\r\nb\r\n":       true,
		"a\nb\n":           false,
		"a\r\nb\r\nc\n":    true,
		"a\r\nb\nc\n":      false,
		"no break\r\n end": true,
	}
	for text, want := range tests {
		if got := usesCRLF(text); got != want {
			t.Errorf("usesCRLF(%q) = %v, want %v", text, got, want)
		}
	}
	if got := toCRLF("a\nb\r\n\nc"); got != "a\r\nb\r\n\r\nc" {
		t.Errorf("toCRLF = %q", got)
	}
}
