package memory

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func TestDiscoverSubdirectoryOncePerSession(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	write(t, filepath.Join(tr.root, "c", "GEMINI.md"), "c rules")
	write(t, filepath.Join(tr.root, "c", "d", "GEMINI.md"), "d rules")
	write(t, filepath.Join(tr.root, "c", "d", "x.go"), "package d")
	l := tr.loader(t)
	ctx := context.Background()

	got := l.Discover(ctx, "s1", filepath.Join(tr.root, "c", "d", "x.go"))
	want := block(filepath.Join(tr.root, "c", "GEMINI.md"), "c rules") + "\n\n" +
		block(filepath.Join(tr.root, "c", "d", "GEMINI.md"), "d rules")
	if got != want {
		t.Fatalf("first discovery:\n%s\nwant:\n%s", got, want)
	}
	if again := l.Discover(ctx, "s1", filepath.Join(tr.root, "c", "d")); again != "" {
		t.Errorf("discovered again in the same session:\n%s", again)
	}
	if other := l.Discover(ctx, "s2", filepath.Join(tr.root, "c", "y.go")); other != block(filepath.Join(tr.root, "c", "GEMINI.md"), "c rules") {
		t.Errorf("another session, the directory's file only:\n%s", other)
	}
	l.EndSession("s1")
	if after := l.Discover(ctx, "s1", filepath.Join(tr.root, "c", "d", "x.go")); after != want {
		t.Errorf("after EndSession the session starts afresh, got:\n%s", after)
	}
}

func TestDiscoverLeavesRootFilesToSystemMemory(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.repo, "GEMINI.md"), "repo rules")
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	write(t, filepath.Join(tr.root, "x.go"), "package x")
	l := tr.loader(t)
	for _, p := range []string{filepath.Join(tr.root, "x.go"), tr.root, filepath.Join(tr.root, "new", "file.go")} {
		if got := l.Discover(context.Background(), "s", p); got != "" {
			t.Errorf("Discover(%s) returned the root's files:\n%s", p, got)
		}
	}
	if got := l.Discover(context.Background(), "s", filepath.Join(tr.base, "elsewhere")); got != "" {
		t.Errorf("a path outside the roots discovered:\n%s", got)
	}
}

func TestDiscoverExpandsImports(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "c", "GEMINI.md"), "c @../shared.md")
	write(t, filepath.Join(tr.root, "shared.md"), "shared")
	got := tr.loader(t).Discover(context.Background(), "s", filepath.Join(tr.root, "c"))
	if !strings.Contains(got, "<!-- Imported from: ../shared.md -->\nshared\n") {
		t.Errorf("imports not expanded:\n%s", got)
	}
}

func TestDiscoverConcurrentCallsGiveEachFileOnce(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "c", "GEMINI.md"), "c rules")
	l := tr.loader(t)
	var wg sync.WaitGroup
	results := make([]string, 16)
	for i := range results {
		wg.Go(func() {
			results[i] = l.Discover(context.Background(), "s", filepath.Join(tr.root, "c", "f.go"))
		})
	}
	wg.Wait()
	n := 0
	for _, r := range results {
		n += strings.Count(r, "c rules")
	}
	if n != 1 {
		t.Errorf("the file was given %d times, want once", n)
	}
}

func TestDiscoverSeesUnsavedBuffer(t *testing.T) {
	tr := newTree(t)
	docs := workspace.NewDocuments()
	ws, err := workspace.New([]string{tr.root}, docs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tr.root, "c", "GEMINI.md")
	write(t, filepath.Join(tr.root, "c", "x.go"), "package c")
	docs.Open(workspace.Document{Path: path, Version: 1, Text: "typed, not saved"})
	got := New(Config{Workspace: ws}).Discover(context.Background(), "s", filepath.Join(tr.root, "c", "x.go"))
	if !strings.Contains(got, "typed, not saved") {
		t.Errorf("the unsaved GEMINI.md was not discovered:\n%s", got)
	}
}

// TestInnermostRootCase: on Windows a path names its root in any case,
// as Windows names files (C:\Users\Me\proj and c:\users\me\PROJ\x are
// one root, as Gemini CLI compares them after 0.61, #29999); elsewhere a
// name in another case is another directory.
func TestInnermostRootCase(t *testing.T) {
	roots := []string{"/home/me/proj", "/home/me/proj/sub"}
	other := "/home/me/PROJ/x"
	if runtime.GOOS == "windows" {
		roots = []string{`C:\Users\Me\proj`, `C:\Users\Me\proj\sub`}
		other = `c:\users\me\PROJ\x`
		if got := innermostRoot(roots, other); got != roots[0] {
			t.Errorf("innermostRoot(%q) = %q, want %q", other, got, roots[0])
		}
		if got := innermostRoot(roots, `c:\USERS\me\proj\SUB\y`); got != roots[1] {
			t.Errorf("innermostRoot of a path in the inner root = %q, want %q", got, roots[1])
		}
		if got := innermostRoot(roots, `c:\users\me\project`); got != "" {
			t.Errorf("a sibling whose name starts as the root's is in %q", got)
		}
		return
	}
	if got := innermostRoot(roots, other); got != "" {
		t.Errorf("innermostRoot(%q) = %q: on %s names keep their case", other, got, runtime.GOOS)
	}
	if got := innermostRoot(roots, "/home/me/proj/sub/y"); got != roots[1] {
		t.Errorf("innermostRoot of a path in the inner root = %q, want %q", got, roots[1])
	}
}

// TestDiscoverPathInAnotherCase: a path the editor names in another case
// than the root (VS Code's c:\ for C:\) finds the context files between
// it and its root on Windows, and not the root's own, which are
// SystemMemory's; elsewhere it is no path in the root.
func TestDiscoverPathInAnotherCase(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.root, "GEMINI.md"), "root rules")
	write(t, filepath.Join(tr.root, "c", "GEMINI.md"), "c rules")
	write(t, filepath.Join(tr.root, "c", "x.go"), "package c")
	path := strings.ToUpper(filepath.Join(tr.root, "c", "x.go"))
	got := tr.loader(t).Discover(context.Background(), "s", path)
	if runtime.GOOS != "windows" {
		if got != "" {
			t.Errorf("on %s, %s is not in the root %s, yet discovered:\n%s", runtime.GOOS, path, tr.root, got)
		}
		return
	}
	if !strings.Contains(got, "c rules") || strings.Contains(got, "root rules") {
		t.Errorf("Discover(%s) in root %s:\n%s\nwant the c directory's file alone", path, tr.root, got)
	}
}
