package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
	"github.com/gemini-ls/gemini-ls/internal/workspace/workspacetest"
)

// bigTree is a directory of 100,000 files, built by the first test that
// needs it and removed after the last.
var bigTree workspacetest.Shared

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.SupervisorArg {
		// The persistent sandbox's supervisor, for the session tests.
		if err := sandbox.Supervise(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	bigTree.Remove()
	os.Exit(code)
}

// bigWorkspace is a workspace over the shared big tree, which tests only read.
func bigWorkspace(t *testing.T) (*testWorkspace, workspacetest.BigTree) {
	t.Helper()
	tree := bigTree.Get(t)
	tw := &testWorkspace{t: t, root: tree.Root, docs: workspace.NewDocuments()}
	var err error
	if tw.ws, err = workspace.New([]string{tree.Root}, tw.docs); err != nil {
		t.Fatal(err)
	}
	return tw, tree
}

func TestGlobFindsEveryMatchInAHugeDirectory(t *testing.T) {
	tw, tree := bigWorkspace(t)
	res := run(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": workspacetest.MatchPattern})
	want := fmt.Sprintf("Found 10 file(s) matching %q within %s, sorted by modification time (newest first), paths relative to the workspace root:\n%s\n", workspacetest.MatchPattern, tw.root, relSlash(tw.root, tree.Newest))
	if !strings.HasPrefix(res.Output, want) {
		t.Errorf("Output:\n%s\nwant it to start with:\n%s", res.Output, want)
	}
	for _, m := range tree.Matches {
		wantContains(t, res.Output, "\n"+relSlash(tw.root, m))
	}
}

func TestGrepSearchFindsANeedlePastTenThousandEntries(t *testing.T) {
	tw, tree := bigWorkspace(t)
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": workspacetest.Needle}).(*grepCall)
	// What is searched is in question here, not how fast: Wine opens a
	// file in a directory this big in time proportional to its size.
	call.timeout = 10 * time.Minute
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(tree.Root, tree.Late)
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, fmt.Sprintf("Found 1 match for pattern %q in the workspace directory:\n---\nFile: %s\nL1: %s\n---",
		workspacetest.Needle, filepath.ToSlash(rel), workspacetest.Needle))
}

func TestReferencesFindEveryMatchInAHugeDirectory(t *testing.T) {
	tw, tree := bigWorkspace(t)
	res := readRefs(t, tw, workspacetest.MatchPattern)
	var want strings.Builder
	for _, m := range tree.Matches {
		fmt.Fprintf(&want, "--- %s ---\n\n\n\n", m)
	}
	wantOutput(t, res, want.String()+"\n--- End of content ---")
}

// An @path that is not a path is the newest file "**/*path*" matches, as
// in Gemini CLI: here the one the file system lists last.
func TestAtPathGlobSeesAHugeDirectoryWhole(t *testing.T) {
	tw, tree := bigWorkspace(t)
	ref, ok, err := ResolveReference(t.Context(), tw.ws, workspacetest.MatchPattern)
	if err != nil || !ok || ref.Path != tree.Newest {
		t.Fatalf("ResolveReference(%s) = %+v, %v, %v; want %s", workspacetest.MatchPattern, ref, ok, err, tree.Newest)
	}
	got, err := ReadReferences(t.Context(), tw.ws, []string{ref.Spec})
	if err != nil || len(got.Files) != 1 || got.Files[0].Path != tree.Newest || len(got.Skipped) != 0 {
		t.Errorf("ReadReferences(%s) = %+v, %v; want %s read", ref.Spec, got, err, tree.Newest)
	}
}

func TestListDirectoryOfAHugeDirectoryIsSortedAndSaysWhatItLeftOut(t *testing.T) {
	tw, tree := bigWorkspace(t)
	tool := tw.tool(ListDirectoryName, Options{})
	want := "Directory listing for " + tree.Dir + ":"
	for i := range maxListedEntries {
		want += fmt.Sprintf("\nf%06d.txt (0 bytes)", i)
	}
	want += fmt.Sprintf("\n\n(%d more entries not shown; list a subdirectory, or find files with glob)", workspacetest.ManyFiles-maxListedEntries)
	for range 2 {
		res := run(t, tool, map[string]any{"path": "many"})
		wantOutput(t, res, want)
		if want := fmt.Sprintf("Listed %d item(s). (%d more entries not shown)", maxListedEntries, workspacetest.ManyFiles-maxListedEntries); res.Display != want {
			t.Errorf("Display = %q, want %q", res.Display, want)
		}
	}
}
