package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// writeChange prepares and writes text to path, resolved first.
func writeChange(t *testing.T, w *Workspace, path, text string) (FileChange, error) {
	t.Helper()
	p, err := w.Resolve(path)
	if err != nil {
		return FileChange{}, err
	}
	change, err := w.PrepareChange(context.Background(), p, text)
	if err != nil {
		return change, err
	}
	return change, WriteFile(context.Background(), change, text)
}

// A file allowed outside the roots (the global GEMINI.md) is read and
// written as if inside them, and nothing else of its directory is
// reachable: not a file beside it, not the directory's listing, not a
// path below the file's name.
func TestAllowFileReachesOnlyThatFile(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.go": "package a\n"})
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/GEMINI.md": "- tabs\n", ".gemini/settings.json": "{}\n"})
	global := filepath.Join(home, ".gemini", "GEMINI.md")
	if _, err := w.Resolve(global); !errors.Is(err, ErrOutsideRoots) {
		t.Fatalf("before AllowFile, Resolve = %v, want ErrOutsideRoots", err)
	}
	got, err := w.AllowFile(global)
	real, _ := filepath.EvalSymlinks(global)
	if err != nil || got != real {
		t.Fatalf("AllowFile = %q, %v; want %s", got, err, real)
	}
	if f, err := w.ReadFile(context.Background(), real, 1<<10); err != nil || string(f.Content) != "- tabs\n" {
		t.Errorf("ReadFile of the allowed file = %q, %v", f.Content, err)
	}
	if isDir, err := w.Stat(real); err != nil || isDir {
		t.Errorf("Stat of the allowed file = %v, %v", isDir, err)
	}
	change, err := writeChange(t, w, global, "- spaces\n")
	if err != nil || !change.Exists || change.Before != "- tabs\n" {
		t.Fatalf("writing the allowed file: %+v, %v", change, err)
	}
	if b, _ := os.ReadFile(global); string(b) != "- spaces\n" {
		t.Errorf("the allowed file holds %q after the write", b)
	}
	dir := filepath.Dir(real)
	for _, outside := range []string{filepath.Join(dir, "settings.json"), filepath.Join(dir, "new.md"), dir} {
		if _, err := w.Resolve(outside); !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("Resolve(%s) beside the allowed file = %v, want ErrOutsideRoots", outside, err)
		}
	}
	if p, err := w.Resolve(filepath.Join(real, "x")); err == nil {
		t.Errorf("a path below the allowed file resolved, to %s", p)
	}
	if entries, _, err := w.ReadDir(context.Background(), dir); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("ReadDir of the allowed file's directory = %v, %v; want ErrOutsideRoots", entries, err)
	}
	if _, err := w.ReadFile(context.Background(), filepath.Join(dir, "settings.json"), 1<<10); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("ReadFile beside the allowed file = %v, want ErrOutsideRoots", err)
	}
	if roots := w.Roots(); len(roots) != 1 || roots[0] != root {
		t.Errorf("Roots = %v, want only %s", roots, root)
	}
}

// An allowed file that does not exist yet is made by its first write,
// its directory too, as Gemini CLI's write_file makes them.
func TestAllowFileNotMadeYet(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	global := filepath.Join(t.TempDir(), ".gemini", "GEMINI.md")
	if _, err := w.AllowFile(global); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFile(context.Background(), global, 1<<10); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile before the first write = %v, want ErrNotExist", err)
	}
	change, err := writeChange(t, w, global, "- tabs\n")
	if err != nil || change.Exists {
		t.Fatalf("the first write: %+v, %v; want a new file written", change, err)
	}
	if b, err := os.ReadFile(global); err != nil || string(b) != "- tabs\n" {
		t.Errorf("the allowed file = %q, %v", b, err)
	}
}

// A base is opened as a directory: Allow refuses a file, which it could
// not reach, and AllowFile a directory.
func TestAllowAndAllowFileRefuseTheOtherKind(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/GEMINI.md": "- tabs\n"})
	if _, err := w.Allow(filepath.Join(home, ".gemini", "GEMINI.md")); err == nil {
		t.Error("Allow took a file")
	}
	if _, err := w.AllowFile(filepath.Join(home, ".gemini")); err == nil {
		t.Error("AllowFile took a directory")
	}
	if _, err := w.Resolve(filepath.Join(home, ".gemini", "GEMINI.md")); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("after both were refused, Resolve = %v, want ErrOutsideRoots", err)
	}
}
