package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// newTestWorkspace returns a workspace over a fresh root holding files
// (path → content; a trailing / makes a directory).
func newTestWorkspace(t *testing.T, files map[string]string) (*Workspace, string) {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	w, err := New([]string{root}, NewDocuments())
	if err != nil {
		t.Fatal(err)
	}
	return w, w.Roots()[0]
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// symlink makes a symbolic link, or skips t where links cannot be made.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	platformtest.Symlink(t, target, link)
}

func TestNew(t *testing.T) {
	if _, err := New(nil, nil); err == nil {
		t.Error("New without roots succeeded")
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := New([]string{missing}, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("New with a missing root: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	writeFiles(t, filepath.Dir(file), map[string]string{"file": "x"})
	if _, err := New([]string{file}, nil); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("New with a file root: %v", err)
	}
	w, err := New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Documents() == nil {
		t.Error("headless workspace has no Documents")
	}
}

func TestNewResolvesSymlinkedRoot(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	symlink(t, real, link)
	w, err := New([]string{link}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantRoot, _ := filepath.EvalSymlinks(real)
	if got := w.Roots(); len(got) != 1 || got[0] != wantRoot {
		t.Fatalf("Roots = %v, want [%s]", got, wantRoot)
	}
	// The root's own spelling through the link resolves inside.
	got, err := w.Resolve(filepath.Join(link, "a.go"))
	if err != nil || got != filepath.Join(wantRoot, "a.go") {
		t.Fatalf("Resolve through the root link = %q, %v", got, err)
	}
}

func TestResolve(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"src/a.go": "package a", "src/sub/": ""})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret": "s", "dir/": ""})
	symlink(t, outside, filepath.Join(root, "out"))                             // dir link leaving the root
	symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "secret")) // file link leaving
	symlink(t, filepath.Join(outside, "nothing"), filepath.Join(root, "dangling"))
	symlink(t, "src", filepath.Join(root, "inside")) // relative link staying inside
	symlink(t, "../a.go", filepath.Join(root, "src", "sub", "a-link.go"))

	ok := []struct{ in, want string }{
		{"src/a.go", "src/a.go"},
		{"./src/../src/a.go", "src/a.go"},
		{filepath.Join(root, "src", "a.go"), "src/a.go"},
		{"src/new/deeper/file.go", "src/new/deeper/file.go"}, // nonexistent
		{"inside/a.go", "src/a.go"},
		{"inside/not-yet/x.go", "src/not-yet/x.go"}, // nonexistent under a symlinked dir
		{"src/sub/a-link.go", "src/a.go"},
		{".", "."},
		{root, "."},
	}
	for _, tt := range ok {
		got, err := w.Resolve(tt.in)
		want := filepath.Join(root, filepath.FromSlash(tt.want))
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, want)
		}
	}

	refused := []string{
		"/etc/passwd",
		"..",
		"../x",
		"src/../../x",
		"out",
		"out/secret",
		"out/dir/new-file.go", // nonexistent under a link to outside
		"secret",
		"dangling", // writing through it would create a file outside
		filepath.Join(outside, "secret"),
	}
	for _, in := range refused {
		got, err := w.Resolve(in)
		if !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("Resolve(%q) = %q, %v; want ErrOutsideRoots", in, got, err)
			continue
		}
		if !strings.Contains(err.Error(), in) || !strings.Contains(err.Error(), root) {
			t.Errorf("Resolve(%q) error %q does not name the path and the roots", in, err)
		}
	}

	if _, err := w.Resolve(""); err == nil {
		t.Error("Resolve of an empty path succeeded")
	}
}

// systemPasswd is /etc/passwd, absolute as the system spells it: on
// Windows on root's drive (C:\etc\passwd), where /etc/passwd is a path
// on no drive.
func systemPasswd(root string) string {
	return filepath.Join(filepath.VolumeName(root)+string(filepath.Separator), "etc", "passwd")
}

func TestResolveErrorMessages(t *testing.T) {
	w, err := New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := w.Roots()[0]
	outside := systemPasswd(root)
	_, err = w.Resolve(outside)
	if want := "path " + outside + " is outside the workspace roots (" + root + ")"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, err = w.Resolve("../x")
	if want := "path ../x resolves to " + filepath.Join(filepath.Dir(root), "x") + ", outside the workspace roots (" + root + ")"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestResolveSeveralRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	w, err := New([]string{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := w.Roots()[0], w.Roots()[1]
	if got, err := w.Resolve("x.go"); err != nil || got != filepath.Join(ra, "x.go") {
		t.Errorf("relative path: %q, %v; want it under the first root", got, err)
	}
	if got, err := w.Resolve(filepath.Join(rb, "y.go")); err != nil || got != filepath.Join(rb, "y.go") {
		t.Errorf("second root: %q, %v", got, err)
	}
	// A sibling whose name starts with a root's name is not inside it.
	if _, err := w.Resolve(ra + "-sibling/z"); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("prefix sibling: %v", err)
	}
}

func TestResolveSymlinkLoop(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	symlink(t, "b", filepath.Join(root, "a"))
	symlink(t, "a", filepath.Join(root, "b"))
	if _, err := w.Resolve("a/x"); err == nil {
		t.Fatal("Resolve through a symlink loop succeeded")
	}
}

func TestReadsRefuseUnresolvedPaths(t *testing.T) {
	w, _ := newTestWorkspace(t, map[string]string{"a": "x"})
	if _, err := w.ReadFile(context.Background(), "a", MaxFileSize); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("ReadFile of a relative path: %v", err)
	}
	outside := systemPasswd(w.Roots()[0])
	if _, err := w.ReadFile(context.Background(), outside, MaxFileSize); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("ReadFile outside the roots: %v", err)
	}
	if _, err := w.PrepareChange(t.Context(), outside, "x"); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("PrepareChange outside the roots: %v", err)
	}
}

// An allowed directory outside the roots is reachable by Resolve, the
// reads and PrepareChange, yet is never a root, and nothing beside it
// (its parent, a sibling) becomes reachable.
func TestAllowReachesOnlyTheDirectory(t *testing.T) {
	w, root := newTestWorkspace(t, map[string]string{"a.go": "package a\n"})
	home := t.TempDir()
	writeFiles(t, home, map[string]string{"tmp/p/plans/old.md": "# old\n", "tmp/p/secret": "no\n"})
	plans := filepath.Join(home, "tmp", "p", "plans")
	if _, err := w.Resolve(filepath.Join(plans, "new.md")); !errors.Is(err, ErrOutsideRoots) {
		t.Fatalf("before Allow, Resolve = %v, want ErrOutsideRoots", err)
	}
	got, err := w.Allow(plans)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(plans)
	if got != real {
		t.Errorf("Allow = %s, want %s", got, real)
	}
	p, err := w.Resolve(filepath.Join(plans, "new.md"))
	if err != nil {
		t.Fatalf("Resolve in the allowed directory: %v", err)
	}
	if _, err := w.PrepareChange(context.Background(), p, "# plan\n"); err != nil {
		t.Errorf("PrepareChange in the allowed directory: %v", err)
	}
	f, err := w.ReadFile(context.Background(), filepath.Join(real, "old.md"), 1<<10)
	if err != nil || string(f.Content) != "# old\n" {
		t.Errorf("ReadFile in the allowed directory = %q, %v", f.Content, err)
	}
	if entries, _, err := w.ReadDir(context.Background(), real); err != nil || len(entries) != 1 {
		t.Errorf("ReadDir of the allowed directory = %v, %v", entries, err)
	}
	for _, outside := range []string{filepath.Join(home, "tmp", "p", "secret"), filepath.Join(home, "tmp", "p", "plans2", "x.md")} {
		if _, err := w.Resolve(outside); !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("Resolve(%s) beside the allowed directory = %v, want ErrOutsideRoots", outside, err)
		}
	}
	if roots := w.Roots(); len(roots) != 1 || roots[0] != root {
		t.Errorf("Roots = %v, want only %s", roots, root)
	}
	if r := w.RootOf(filepath.Join(real, "old.md")); r != "" {
		t.Errorf("RootOf in the allowed directory = %q, want none", r)
	}
}

// A root added while the workspace is in use is one like the others: a
// path in it resolves and reads, a path beside it is still refused, and
// adding it again (or a path naming it another way) adds nothing.
func TestAddRoot(t *testing.T) {
	w, first := newTestWorkspace(t, map[string]string{"a.txt": "a"})
	parent := t.TempDir()
	writeFiles(t, parent, map[string]string{"lib/x.go": "package x\n", "secret.txt": "no"})
	lib := filepath.Join(parent, "lib")
	if _, err := w.Resolve(filepath.Join(lib, "x.go")); !errors.Is(err, ErrOutsideRoots) {
		t.Fatalf("before AddRoot, Resolve = %v, want ErrOutsideRoots", err)
	}
	real, added, err := w.AddRoot(lib)
	if err != nil || !added {
		t.Fatalf("AddRoot = %q, %v, %v", real, added, err)
	}
	p, err := w.Resolve(filepath.Join(lib, "x.go"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := w.ReadFile(context.Background(), p, 1<<10); err != nil || string(f.Content) != "package x\n" {
		t.Errorf("ReadFile in the added root = %q, %v", f.Content, err)
	}
	if _, err := w.PrepareChange(context.Background(), filepath.Join(real, "y.go"), "package x\n"); err != nil {
		t.Errorf("PrepareChange in the added root: %v", err)
	}
	if entries, _, err := w.ReadDir(context.Background(), real); err != nil || len(entries) != 1 {
		t.Errorf("ReadDir of the added root = %v, %v", entries, err)
	}
	if _, err := w.Resolve(filepath.Join(parent, "secret.txt")); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("Resolve beside the added root = %v, want ErrOutsideRoots", err)
	}
	if _, err := w.PrepareChange(context.Background(), filepath.Join(parent, "secret.txt"), "x"); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("PrepareChange beside the added root = %v, want ErrOutsideRoots", err)
	}
	if roots := w.Roots(); len(roots) != 2 || roots[0] != first || roots[1] != real {
		t.Errorf("Roots = %v, want %s then %s", roots, first, real)
	}
	if _, added, err := w.AddRoot(filepath.Join(lib, ".", "")); err != nil || added {
		t.Errorf("AddRoot again = %v, %v; want nothing added", added, err)
	}
	if _, _, err := w.AddRoot(filepath.Join(parent, "secret.txt")); err == nil {
		t.Error("AddRoot of a file succeeded")
	}
	if _, added, err := w.AddRoot("sub"); err == nil || added {
		t.Errorf("AddRoot of a missing directory = %v, %v; want an error", added, err)
	}
	if len(w.Roots()) != 2 {
		t.Errorf("failed AddRoots changed the roots: %v", w.Roots())
	}
}

// RemoveRoot takes a root out of reach at once: a path in it no longer
// resolves, and a change prepared in it before is refused by StillHolds,
// so it is never written; the first root stays.
func TestRemoveRoot(t *testing.T) {
	w, first := newTestWorkspace(t, nil)
	second, err := RealPath(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.AddRoot(second); err != nil {
		t.Fatal(err)
	}
	change, err := w.PrepareChange(context.Background(), filepath.Join(second, "a.txt"), "text\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.StillHolds(change); err != nil {
		t.Fatalf("before the removal: %v", err)
	}
	if got, removed, err := w.RemoveRoot(second); err != nil || !removed || got != second {
		t.Fatalf("RemoveRoot = %q, %v, %v", got, removed, err)
	}
	if roots := w.Roots(); len(roots) != 1 || roots[0] != w.firstRoot() {
		t.Errorf("roots after the removal: %v", roots)
	}
	if err := w.StillHolds(change); !errors.Is(err, ErrOutsideRoots) || !strings.Contains(err.Error(), "removed from the editor's workspace folders") {
		t.Errorf("StillHolds after the removal: %v", err)
	}
	if _, err := w.Resolve(filepath.Join(second, "a.txt")); !errors.Is(err, ErrOutsideRoots) {
		t.Errorf("a path in the removed root resolved: %v", err)
	}
	if _, removed, err := w.RemoveRoot(second); removed || err != nil {
		t.Errorf("removing it again: %v, %v", removed, err)
	}
	if _, _, err := w.RemoveRoot(first); !errors.Is(err, ErrFirstRoot) {
		t.Errorf("removing the first root: %v", err)
	}
}

// An allowed directory not made yet (a plans directory, made on its
// first write) holds no file: a change to a file in it is prepared as a
// new file, and a read of one is ErrNotExist, not an error of the
// directory's.
func TestAnAllowedDirectoryNotMadeYetHoldsNoFile(t *testing.T) {
	w, _ := newTestWorkspace(t, map[string]string{"a.go": "package a\n"})
	plans := filepath.Join(t.TempDir(), "tmp", "p", "plans")
	got, err := w.Allow(plans)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(got, "plan.md")
	change, err := w.PrepareChange(context.Background(), p, "# plan\n")
	if err != nil || change.Exists {
		t.Errorf("PrepareChange in an allowed directory not made yet: %+v, %v; want a new file", change, err)
	}
	if _, err := w.ReadFile(context.Background(), p, 1<<10); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFile in an allowed directory not made yet: %v, want ErrNotExist", err)
	}
}
