package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if err != nil || string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("after Replace: %q, %v, mode %v", b, err, fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("Replace left %d files behind", len(entries)-1)
	}
	// A directory cannot be replaced: the error comes back and nothing is left.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(sub, []byte("x"), 0o600); err == nil {
		t.Error("replacing a non-empty directory succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("a failed Replace left %d entries, want 2", len(entries))
	}
}

func TestDescribeMode(t *testing.T) {
	if got := DescribeMode(fs.ModeNamedPipe); got != "a named pipe (FIFO)" {
		t.Errorf("FIFO: %q", got)
	}
	if got := DescribeMode(fs.ModeDir | fs.ModeSymlink); got != "a directory" {
		t.Errorf("dir: %q", got)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(path, 5); err != nil || string(b) != "12345" {
		t.Errorf("Read = %q, %v", b, err)
	}
	if _, err := Read(path, 4); err == nil {
		t.Error("a file over the limit was read")
	}
	if _, err := Read(dir, 1<<20); err == nil {
		t.Error("a directory was read")
	}
}

func TestWriteKeepsTheModeAndWriteIfChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o751); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o751 {
		t.Errorf("mode after Write = %v, want 0751 kept", fi.Mode().Perm())
	}
	changed := errors.New("changed")
	if err := WriteIf(path, []byte("newer"), func() error { return changed }); err != changed {
		t.Errorf("WriteIf = %v, want the check's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("a refused WriteIf replaced the file: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a refused WriteIf left %d files behind", len(entries)-1)
	}
}
