package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
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
	if b, err := os.ReadFile(path); err != nil || string(b) != "new" {
		t.Errorf("after Replace: %q, %v", b, err)
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
	// Nor is it told as held by another program, which Windows's error
	// (access denied) would also say of a held file.
	if err := Replace(sub, []byte("x"), 0o600); err == nil || errors.Is(err, ErrInUse) {
		t.Errorf("replacing a non-empty directory: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("a failed Replace left %d entries, want 2", len(entries))
	}
}

// Replace gives the file the mode asked for, whatever it had.
func TestReplaceGivesTheMode(t *testing.T) {
	platformtest.Unix(t, "file modes")
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("after Replace: %v, %v; want mode 0600", fi, err)
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

func TestWriteKeepsTheMode(t *testing.T) {
	platformtest.Unix(t, "file modes")
	path := filepath.Join(t.TempDir(), "f")
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
}

func TestWriteIfChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
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

// ReadDir lists a directory, through a symlink too, by name; n bounds it.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"c", "a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func(dir string) string {
		t.Helper()
		entries, err := ReadDir(dir, 0)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", dir, err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, ",")
	}
	if got := names(dir); got != "a,b,c" {
		t.Errorf("ReadDir = %s; want a, b, c", got)
	}
	if entries, err := ReadDir(dir, 2); err != nil || len(entries) != 2 {
		t.Errorf("ReadDir(dir, 2) = %d entries, %v", len(entries), err)
	}
	if _, err := ReadDir(filepath.Join(dir, "a"), 0); err == nil {
		t.Error("ReadDir of a file succeeded")
	}
	if entries, err := ReadDir(t.TempDir(), 5); err != nil || len(entries) != 0 {
		t.Errorf("ReadDir of an empty directory, bounded = %v, %v", entries, err)
	}
	link := filepath.Join(t.TempDir(), "link")
	platformtest.Symlink(t, dir, link)
	if got := names(link); got != "a,b,c" {
		t.Errorf("ReadDir through a symlink = %s; want a, b, c", got)
	}
}

// ReplaceCache replaces the file whole, 0600, leaving no temporary file.
func TestReplaceCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.json")
	for _, data := range []string{"first", "second"} {
		if err := ReplaceCache(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the directory holds %v (%v), want the cache alone", entries, err)
	}
	if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", fi.Mode(), err)
	}
}

// readAll reads a file into the size its stat gave, one allocation; one
// that grew since is read on to the limit and one byte past it, which
// Read refuses.
func TestReadAllReadsWhatIsThereNotWhatTheStatSaid(t *testing.T) {
	for _, tc := range []struct {
		name        string
		data        string
		size, limit int64
		want        string
	}{
		{"as stat-ed", "12345", 5, 10, "12345"},
		{"grown since", "1234567", 3, 10, "1234567"},
		{"shrunk since", "12", 5, 10, "12"},
		{"past the limit", "1234567", 3, 5, "123456"},
		{"stat-ed past the limit", "1234567", 7, 5, "123456"},
		{"empty", "", 0, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(iotest.HalfReader(strings.NewReader(tc.data)), tc.size, tc.limit)
			if err != nil || string(got) != tc.want {
				t.Errorf("readAll = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	file := strings.Repeat("x", 5000)
	r := strings.NewReader(file)
	allocs := testing.AllocsPerRun(10, func() {
		r.Reset(file)
		_, _ = readAll(r, 5000, 1<<20)
	})
	if allocs != 1 {
		t.Errorf("a file read as stat-ed took %v allocations, want 1", allocs)
	}
}
