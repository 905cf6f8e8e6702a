package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The getdents reader lists what os.ReadDir lists, typed the same, across
// many buffers' worth of names of every length.
func TestDirentReaderListsWhatReadDirLists(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		name := strconv.Itoa(i) + strings.Repeat("n", i%250) // up to 254 bytes

		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"d1", "ünï", "with space"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d1", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names dirNames
	r := names.reader()
	defer r.release()
	var got []direntName
	for eof := false; !eof; {
		var batch []direntName
		if batch, eof, err = r.read(f, 100); err != nil {
			t.Fatal(err)
		}
		if len(batch) > 100 {
			t.Fatalf("asked for 100 entries, got %d", len(batch))
		}
		got = append(got, batch...)
	}
	slices.SortFunc(got, func(a, b direntName) int { return strings.Compare(a.name, b.name) })
	if len(got) != len(want) {
		t.Fatalf("listed %d entries, os.ReadDir %d", len(got), len(want))
	}
	for i, de := range want {
		if got[i].name != de.Name() || got[i].typ != de.Type() {
			t.Errorf("entry %d: %q %v, os.ReadDir: %q %v", i, got[i].name, got[i].typ, de.Name(), de.Type())
		}
	}
}
