package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A file another program holds open without sharing it is not replaced:
// the error says so, the file keeps what it held and no temporary file
// is left; once the program lets go, the write goes through.
func TestWriteFileHeldOpenByAnotherProgram(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	// As an editor that opens the file sharing nothing.
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ, 0, nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = Write(path, []byte("new"))
	syscall.CloseHandle(h)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("Write of a file held open = %v, want ErrInUse", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("the held file holds %q after the failed write, want %q", got, "old")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the failed write left %d files behind", len(entries)-1)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatalf("Write once the file is let go: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("after the write the file holds %q, want %q", got, "new")
	}
}
