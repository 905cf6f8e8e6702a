//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// An allowed file that is a symlink when allowed (a dotfiles user's
// ~/.gemini/GEMINI.md) is allowed as the file it leads to, as Gemini CLI
// compares real paths: written through the link's name, the write lands
// there; nothing else of the target's directory is reachable.
func TestAllowFileFollowsItsLinkWhenAllowed(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	home := t.TempDir()
	writeFiles(t, home, map[string]string{"dotfiles/GEMINI.md": "- tabs\n", "dotfiles/secret": "no\n", ".gemini/": ""})
	global := filepath.Join(home, ".gemini", "GEMINI.md")
	if err := os.Symlink(filepath.Join(home, "dotfiles", "GEMINI.md"), global); err != nil {
		t.Fatal(err)
	}
	got, err := w.AllowFile(global)
	target, _ := filepath.EvalSymlinks(filepath.Join(home, "dotfiles", "GEMINI.md"))
	if err != nil || got != target {
		t.Fatalf("AllowFile = %q, %v; want the link's target %s", got, err, target)
	}
	if _, err := writeChange(t, w, global, "- spaces\n"); err != nil {
		t.Fatalf("writing through the link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "- spaces\n" {
		t.Errorf("the target holds %q", b)
	}
	if fi, err := os.Lstat(global); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if _, err := w.Resolve(filepath.Join(filepath.Dir(target), "secret")); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("Resolve beside the target = %v, want ErrOutsideRoots", err)
	}
}

// A symlink put in the allowed file's place after it was allowed is
// refused, whether it is met by name (it leads elsewhere: outside) or
// swapped in between a change's preparation and its write (the write
// goes through the directory's handle and follows no link): what it
// leads to is never written.
func TestAllowedFileSwappedForALinkIsRefused(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/GEMINI.md": "- tabs\n", ".ssh/authorized_keys": "key\n"})
	global := filepath.Join(home, ".gemini", "GEMINI.md")
	keys := filepath.Join(home, ".ssh", "authorized_keys")
	real, err := w.AllowFile(global)
	if err != nil {
		t.Fatal(err)
	}
	change, err := w.PrepareChange(context.Background(), real, "- spaces\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(global); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keys, global); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(context.Background(), change, "- spaces\n"); !errors.Is(err, errSwapped) {
		t.Errorf("a write through a link swapped in: %v, want it refused as swapped", err)
	}
	if _, err := w.Resolve(global); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("Resolve through the link = %v, want ErrOutsideRoots", err)
	}
	if _, err := w.ReadFile(context.Background(), real, 1<<10); err == nil {
		t.Error("a read through a link swapped in succeeded")
	}
	if b, _ := os.ReadFile(keys); string(b) != "key\n" {
		t.Errorf("the link's target holds %q", b)
	}
}
