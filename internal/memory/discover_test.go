package memory

import (
	"context"
	"path/filepath"
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
