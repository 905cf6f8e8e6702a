package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The roots are opened once: every read beneath one starts from the
// handle kept since the first.
func TestRootKeptOpenAcrossReads(t *testing.T) {
	needKeptBases(t)
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "one", "sub/b.txt": "two"})
	ctx := context.Background()
	for _, name := range []string{"a.txt", "sub/b.txt"} {
		if _, err := w.ReadFile(ctx, filepath.Join(root, filepath.FromSlash(name)), MaxFileSize); err != nil {
			t.Fatal(err)
		}
	}
	first := w.bases.kept[root]
	if first == nil {
		t.Fatal("the root was not kept open")
	}
	if _, _, err := w.ReadDir(ctx, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stat(filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if got := w.bases.kept[root]; got != first {
		t.Error("the root was opened again while its name still named it")
	}
}

// A root replaced underneath (renamed away, another directory made in
// its place) is what every operation reaches from then on, as when each
// opened it by name; what was kept of the old one is not read.
func TestReplacedRootIsOpenedAgain(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "old", "old-only.txt": "x"})
	ctx := context.Background()
	read := func(name string) (string, error) {
		f, err := w.ReadFile(ctx, filepath.Join(root, name), MaxFileSize)
		return string(f.Content), err
	}
	if got, err := read("a.txt"); err != nil || got != "old" {
		t.Fatalf("before: %q, %v", got, err)
	}
	if err := os.Rename(root, root+".moved"); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"a.txt": "new"})
	if got, err := read("a.txt"); err != nil || got != "new" {
		t.Errorf("after the root was replaced: %q, %v; want the new root's %q", got, err, "new")
	}
	if _, err := read("old-only.txt"); err == nil {
		t.Error("a file of the replaced root was read through the handle kept of it")
	}
	if isDir, err := w.Stat(filepath.Join(root, "old-only.txt")); err == nil {
		t.Errorf("stat of a file of the replaced root: isDir %v, no error", isDir)
	}
	entries, _, err := w.ReadDir(ctx, root)
	if err != nil || len(entries) != 1 || entries[0].Name != "a.txt" {
		t.Errorf("listing the new root: %v, %v; want a.txt alone", entries, err)
	}
}

// A root removed underneath fails as it did when opened at each use.
func TestRemovedRootFails(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "old"})
	ctx := context.Background()
	if _, err := w.ReadFile(ctx, filepath.Join(root, "a.txt"), MaxFileSize); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFile(ctx, filepath.Join(root, "a.txt"), MaxFileSize); err == nil {
		t.Error("a file of a removed root was read")
	}
}

// An entry a listing reported is read and stat-ed beneath the directory
// it was listed from, without checking the root's name again: a root
// replaced between the listing and the read gives the file listed.
func TestListedEntryIsReadBeneathItsListing(t *testing.T) {
	needKeptBases(t)
	w, root := newTestWorkspace(t, map[string]string{"a.txt": "listed"})
	ctx := context.Background()
	entries, _, err := w.ReadDir(ctx, root)
	if err != nil || len(entries) != 1 {
		t.Fatalf("listing: %v, %v", entries, err)
	}
	if err := os.Rename(root, root+".moved"); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"a.txt": "new"})
	f, err := w.ReadEntry(ctx, entries[0], MaxFileSize)
	if err != nil || string(f.Content) != "listed" {
		t.Errorf("the listed entry read %q, %v; want the file listed", f.Content, err)
	}
	if info, err := w.Info(entries[0]); err != nil || info.Size != int64(len("listed")) {
		t.Errorf("the listed entry's info: %+v, %v; want the file listed's size", info, err)
	}
	if f, err := w.ReadFile(ctx, filepath.Join(root, "a.txt"), MaxFileSize); err != nil || string(f.Content) != "new" {
		t.Errorf("a read by name: %q, %v; want the new root's", f.Content, err)
	}
}

// A walk lists each directory beneath the base its parent was listed
// from, without checking the base's name again: a root replaced during
// the walk does not change what the walk goes on listing.
func TestWalkListsBeneathTheBaseItStartedFrom(t *testing.T) {
	needKeptBases(t)
	w, root := newTestWorkspace(t, map[string]string{"sub/old.txt": "old"})
	var seen []string
	_, err := w.Walk(context.Background(), root, WalkOptions{}, func(e DirEntry) error {
		seen = append(seen, e.Name)
		if e.Name == "sub" {
			if err := os.Rename(root, root+".moved"); err != nil {
				t.Error(err)
			}
			writeFiles(t, root, map[string]string{"sub/new.txt": "new"})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sub", "old.txt"}; !slices.Equal(seen, want) {
		t.Errorf("the walk saw %v, want %v", seen, want)
	}
}

// needKeptBases skips t where bases are not kept open (keepBases): on
// Windows each use opens its base and closes it after.
func needKeptBases(t *testing.T) {
	t.Helper()
	if !keepBases {
		t.Skip("Windows keeps no root open: a directory held open could not be renamed or removed")
	}
}
