//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// outsideTree is a directory outside the roots shaped like the root's
// a/b/c.txt, each directory also holding only-outside.txt, every file
// saying SECRET: what a path swapped to lead out would reach.
func outsideTree(t *testing.T) string {
	t.Helper()
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, outside, map[string]string{
		"a/b/c.txt":             "SECRET, longer than the inside file\n",
		"a/b/only-outside.txt":  "SECRET\n",
		"a/only-outside.txt":    "SECRET\n",
		"only-outside.txt":      "SECRET\n",
		"a/b/new/only-outside/": "",
		"a/b/same.txt":          "same\n", // as inside: only where it is tells them apart
	})
	return outside
}

// snapshot is every path below dir with its content, to tell that
// nothing there changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", strings.TrimPrefix(p, dir), d.Type())
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %v", fi.Mode())
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// beneathOp is one file operation: prepare does what a tool does before
// the operation (resolving the path, listing, preparing the change) and
// returns the operation, which reports what it saw.
type beneathOp struct {
	name    string
	prepare func(t *testing.T, w *Workspace, root string) func() (string, error)
}

func resolved(t *testing.T, w *Workspace, rel string) string {
	t.Helper()
	p, err := w.Resolve(rel)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// listedEntry is the entry named name of the listing of dir.
func listedEntry(t *testing.T, w *Workspace, dir, name string) DirEntry {
	t.Helper()
	entries, _, err := w.ReadDir(t.Context(), resolved(t, w, dir))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(entries, func(e DirEntry) bool { return e.Name == name })
	if i < 0 {
		t.Fatalf("%s not listed in %s", name, dir)
	}
	return entries[i]
}

func names(entries []DirEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return strings.Join(out, " ")
}

var beneathOps = []beneathOp{
	{"ReadFile", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		p := resolved(t, w, "a/b/c.txt")
		return func() (string, error) {
			f, err := w.ReadFile(t.Context(), p, MaxFileSize)
			return string(f.Content), err
		}
	}},
	{"ReadFile once resolved", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		// ReadFile resolves the path again, which a swap may follow:
		// what it then opens is reached beneath the root all the same.
		p := resolved(t, w, "a/b/c.txt")
		return func() (string, error) {
			data, _, err := w.readText(t.Context(), p, p, MaxFileSize)
			return string(data), err
		}
	}},
	{"PrepareChange", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		p := resolved(t, w, "a/b/c.txt")
		return func() (string, error) {
			c, err := w.PrepareChange(t.Context(), p, "x\n")
			return c.Before, err
		}
	}},
	{"ReadEntry", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		e := listedEntry(t, w, "a/b", "c.txt")
		return func() (string, error) {
			f, err := w.ReadEntry(t.Context(), e, MaxFileSize)
			return string(f.Content), err
		}
	}},
	{"Info", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		e := listedEntry(t, w, "a/b", "c.txt")
		return func() (string, error) {
			info, err := w.Info(e)
			return fmt.Sprintf("size %d", info.Size), err
		}
	}},
	{"Stat", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		p := resolved(t, w, "a/b/c.txt")
		return func() (string, error) {
			isDir, err := w.Stat(p)
			return fmt.Sprintf("dir %v", isDir), err
		}
	}},
	{"ReadDir", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		p := resolved(t, w, "a/b")
		return func() (string, error) {
			entries, _, err := w.ReadDir(t.Context(), p)
			return names(entries), err
		}
	}},
	{"Walk", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		p := resolved(t, w, "a")
		return func() (string, error) {
			var seen []string
			_, err := w.Walk(t.Context(), p, WalkOptions{}, func(e DirEntry) error {
				seen = append(seen, e.Path)
				if !e.IsDir {
					f, err := w.ReadEntry(t.Context(), e, MaxFileSize)
					seen = append(seen, string(f.Content), fmt.Sprint(err))
				}
				return nil
			})
			return strings.Join(seen, " "), err
		}
	}},
	{"WriteFile", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		c, err := w.PrepareChange(t.Context(), resolved(t, w, "a/b/c.txt"), "inside\n")
		if err != nil {
			t.Fatal(err)
		}
		return func() (string, error) { return "", WriteFile(t.Context(), c, "WRITTEN\n") }
	}},
	{"WriteFile into new directories", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		c, err := w.PrepareChange(t.Context(), resolved(t, w, "a/b/new/dir/d.txt"), "")
		if err != nil {
			t.Fatal(err)
		}
		return func() (string, error) { return "", WriteFile(t.Context(), c, "WRITTEN\n") }
	}},
	{"RemoveFile", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		c, err := w.PrepareChange(t.Context(), resolved(t, w, "a/b/same.txt"), "")
		if err != nil {
			t.Fatal(err)
		}
		return func() (string, error) { return "", RemoveFile(t.Context(), c) }
	}},
	{"SetMode", func(t *testing.T, w *Workspace, _ string) func() (string, error) {
		p := resolved(t, w, "a/b/same.txt")
		return func() (string, error) {
			_, err := w.SetMode(p, func(fs.FileMode) fs.FileMode { return 0o755 })
			return "", err
		}
	}},
}

// Every file operation, its path resolved (or listed, or its change
// prepared) and then one component of it swapped for a symlink leading
// outside the roots, as a command racing the tools does: what it opens
// is reached beneath the root, so it fails or sees the root's files,
// never the outside's, and nothing outside is written.
func TestOperationsNeverFollowALinkSwappedInOutOfTheRoot(t *testing.T) {
	for _, component := range []string{"a", "a/b", "a/b/c.txt"} {
		for _, op := range beneathOps {
			t.Run(op.name+" "+component, func(t *testing.T) {
				w, root := newTestWorkspace(t, map[string]string{"a/b/c.txt": "inside\n", "a/b/same.txt": "same\n"})
				outside := outsideTree(t)
				before := snapshot(t, outside)
				act := op.prepare(t, w, root)

				swapped := filepath.Join(root, filepath.FromSlash(component))
				if err := os.Rename(swapped, swapped+".moved"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(outside, filepath.FromSlash(component)), swapped); err != nil {
					t.Fatal(err)
				}

				saw, err := act()
				if strings.Contains(saw, "SECRET") || strings.Contains(saw, "only-outside") ||
					saw == fmt.Sprintf("size %d", len("SECRET, longer than the inside file\n")) {
					t.Errorf("%s reached outside the root: %q (err %v)", op.name, saw, err)
				}
				if err != nil && strings.Contains(err.Error(), "SECRET") {
					t.Errorf("the error tells outside content: %v", err)
				}
				if after := snapshot(t, outside); after != before {
					t.Errorf("%s changed the outside directory:\n%s\nwas:\n%s", op.name, after, before)
				}
				if op.name == "Stat" && err == nil {
					t.Error("Stat succeeded through the swapped link")
				}
			})
		}
	}
}

// A swapped-in link is refused with a sentence naming what happened.
func TestALinkSwappedInIsRefusedWithWhy(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a/b/c.txt": "inside\n"})
	outside := outsideTree(t)
	p := resolved(t, w, "a/b/c.txt")
	c, err := w.PrepareChange(t.Context(), p, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "a.moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "a"), filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	err = WriteFile(t.Context(), c, "WRITTEN\n")
	if !errors.Is(err, errSwapped) || !strings.Contains(err.Error(), p) {
		t.Errorf("WriteFile = %v, want the path and errSwapped", err)
	}
}

// The root as it holds links at every component, before anything is
// resolved: links staying inside the root work as they always did
// (reads, listings and writes reach their target), links leading out are
// refused, and a dangling link is written through to its target only
// when that lies inside.
func TestLinksInEveryComponent(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"real/b/c.txt": "inside\n"})
	outside := outsideTree(t)
	before := snapshot(t, outside)
	for link, target := range map[string]string{
		"in-first":          filepath.Join(root, "real"),
		"real/in-mid":       "b",
		"real/b/in-last":    "c.txt",
		"out-first":         filepath.Join(outside, "a"),
		"real/out-mid":      filepath.Join(outside, "a", "b"),
		"real/b/out-last":   filepath.Join(outside, "a", "b", "c.txt"),
		"real/b/dangling":   "made-through-link.txt",
		"real/b/dangle-out": filepath.Join(outside, "made.txt"),
	} {
		p := filepath.Join(root, filepath.FromSlash(link))
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}

	want := "inside\n"
	for _, rel := range []string{"in-first/b/c.txt", "real/in-mid/c.txt", "real/b/in-last"} {
		p := resolved(t, w, rel)
		f, err := w.ReadFile(t.Context(), p, MaxFileSize)
		if err != nil || string(f.Content) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want the file linked to", rel, f.Content, err)
		}
		c, err := w.PrepareChange(t.Context(), p, "edited "+rel+"\n")
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(t.Context(), c, c.After); err != nil {
			t.Errorf("WriteFile(%s): %v", rel, err)
		}
		if want = readRaw(t, filepath.Join(root, "real/b/c.txt")); want != c.After {
			t.Errorf("after writing %s, real/b/c.txt = %q", rel, want)
		}
	}
	// Listed: the link inside; left out: those leading out or nowhere.
	entries, _, err := w.ReadDir(t.Context(), resolved(t, w, "in-first/in-mid"))
	if err != nil || names(entries) != "c.txt in-last" {
		t.Errorf("ReadDir(in-first/in-mid) = %q, %v", names(entries), err)
	}

	for _, rel := range []string{"out-first/b/c.txt", "real/out-mid/c.txt", "real/b/out-last", "real/b/dangle-out"} {
		if _, err := w.Resolve(rel); !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("Resolve(%s) = %v, want ErrOutsideRoots", rel, err)
		}
	}

	p := resolved(t, w, "real/b/dangling")
	if _, err := w.ReadFile(t.Context(), p, MaxFileSize); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile through a dangling link = %v, want ErrNotExist", err)
	}
	c, err := w.PrepareChange(t.Context(), p, "made\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, filepath.Join(root, "real/b/made-through-link.txt")); got != "made\n" {
		t.Errorf("the dangling link's target holds %q", got)
	}
	if after := snapshot(t, outside); after != before {
		t.Errorf("the outside directory changed:\n%s\nwas:\n%s", after, before)
	}
}

// A directory swapped for a symlink leading out once WriteFile holds
// its file's directory handle (the widest window of the race): the
// check, the temporary file and the rename go through that handle, so
// the file lands in the directory that was checked, wherever a name
// now leads, and nothing (no temporary file either) lands outside.
func TestWriteFileCheckTempAndRenameGoThroughTheDirectoryHandle(t *testing.T) {
	for _, component := range []string{"a", "a/b"} {
		t.Run(component, func(t *testing.T) {
			w, root := newTestWorkspace(t, map[string]string{"a/b/c.txt": "inside\n"})
			outside := outsideTree(t)
			before := snapshot(t, outside)
			c, err := w.PrepareChange(t.Context(), resolved(t, w, "a/b/c.txt"), "WRITTEN\n")
			if err != nil {
				t.Fatal(err)
			}
			swapped := filepath.Join(root, filepath.FromSlash(component))
			writeDirOpened = func() {
				if err := os.Rename(swapped, swapped+".moved"); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(filepath.Join(outside, filepath.FromSlash(component)), swapped); err != nil {
					t.Error(err)
				}
			}
			t.Cleanup(func() { writeDirOpened = nil })

			if err := WriteFile(t.Context(), c, c.After); err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			moved := filepath.Join(root, filepath.FromSlash(strings.Replace("a/b/c.txt", component, component+".moved", 1)))
			if got := readRaw(t, moved); got != "WRITTEN\n" {
				t.Errorf("the checked directory's file holds %q, want the write", got)
			}
			entries, err := os.ReadDir(filepath.Dir(moved))
			if err != nil || names(dirEntries(entries)) != "c.txt" {
				t.Errorf("the checked directory holds %q, %v: want c.txt alone (no temporary file)", names(dirEntries(entries)), err)
			}
			if after := snapshot(t, outside); after != before {
				t.Errorf("WriteFile changed the outside directory:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}

func dirEntries(entries []os.DirEntry) []DirEntry {
	var out []DirEntry
	for _, e := range entries {
		out = append(out, DirEntry{Name: e.Name()})
	}
	return out
}

// A read tells the file it read (File.Real): its path, or where a
// symlink led, one the path held when listed or one swapped in after it
// was resolved, so that what holds of a file (ignore rules) is checked of
// the file read, not of the name asked for (issue 65).
func TestReadsTellTheFileTheyRead(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"plain.txt": "plain\n", "hidden.txt": "hidden\n"})
	hidden := filepath.Join(root, "hidden.txt")
	platformtest.Symlink(t, "plain.txt", filepath.Join(root, "link.txt"))
	plain := resolved(t, w, "plain.txt")
	link := listedEntry(t, w, ".", "link.txt")
	regular := listedEntry(t, w, ".", "plain.txt")

	f, err := w.ReadEntry(t.Context(), regular, MaxFileSize)
	if err != nil || f.Real != plain {
		t.Errorf("ReadEntry(plain.txt) read %s, %v; want %s", f.Real, err, plain)
	}
	// The listed link now leads to hidden.txt, and plain.txt is a link
	// to it: each read reads hidden.txt, and says so.
	for _, name := range []string{"link.txt", "plain.txt"} {
		if err := os.Remove(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
		platformtest.Symlink(t, "hidden.txt", filepath.Join(root, name))
	}
	for what, read := range map[string]func() (File, error){
		"ReadEntry(link.txt)": func() (File, error) { return w.ReadEntry(t.Context(), link, MaxFileSize) },
		"ReadFile(plain.txt)": func() (File, error) { return w.ReadFile(t.Context(), plain, MaxFileSize) },
	} {
		f, err := read()
		if err != nil || string(f.Content) != "hidden\n" || f.Real != hidden {
			t.Errorf("%s = %q from %s, %v; want hidden.txt's, telling it", what, f.Content, f.Real, err)
		}
	}
	if _, err := w.ReadEntry(t.Context(), regular, MaxFileSize); !errors.Is(err, errSwapped) {
		t.Errorf("ReadEntry(plain.txt) listed a regular file, now a link: %v, want errSwapped", err)
	}
}
