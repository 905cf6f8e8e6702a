package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// renameRun is a headless run's view and rename_symbol's change of greet
// to hello across two files on disk.
func renameRun(t *testing.T, ask bool) (unattended, dialog.LandFilesRequest) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	r, err := newReport("json", &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws, err := workspace.New([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := dialog.LandFilesRequest{Title: "Rename greet to hello", CallID: "call_1", Ask: ask}
	for _, name := range []string{"a.go", "b.go"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("package main\n\nfunc greet() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		change, err := ws.PrepareChange(t.Context(), path, "package main\n\nfunc hello() {}\n")
		if err != nil {
			t.Fatal(err)
		}
		req.Changes = append(req.Changes, dialog.RevertChange{FileChange: change})
	}
	return unattended{r}, req
}

func filesHold(t *testing.T, req dialog.LandFilesRequest, after bool) {
	t.Helper()
	for _, c := range req.Changes {
		b, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		want := c.Before
		if after {
			want = c.After
		}
		if string(b) != want {
			t.Errorf("%s holds %q, want %q", c.Path, b, want)
		}
	}
}

// An edit call's change across files that needs asking is refused in
// the words Land refuses an edit with; nothing is written.
func TestHeadlessRefusesAnEditCallOfSeveralFilesToAsk(t *testing.T) {
	u, req := renameRun(t, true)
	ds, err := u.LandFiles(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	one, err := u.Land(t.Context(), dialog.LandRequest{CallID: "call_1", Change: req.Changes[0].FileChange, Ask: true})
	if err != nil || one.Outcome != dialog.Refused {
		t.Fatalf("Land = %+v, %v; want refused", one, err)
	}
	for _, d := range ds {
		if d.Outcome != dialog.Refused || d.Reason != one.Reason {
			t.Errorf("decision %+v, want refused: %s", d, one.Reason)
		}
	}
	filesHold(t, req, false)
}

// An allowed edit call's change across files lands on disk and counts
// in the run's lines changed, as Land's.
func TestHeadlessLandsAnAllowedEditCallOfSeveralFiles(t *testing.T) {
	u, req := renameRun(t, false)
	ds, err := u.LandFiles(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Outcome != dialog.Applied {
			t.Errorf("decision %+v, want applied", d)
		}
	}
	filesHold(t, req, true)
	if u.files.TotalLinesAdded != 2 || u.files.TotalLinesRemoved != 2 {
		t.Errorf("lines changed +%d −%d, want +2 −2", u.files.TotalLinesAdded, u.files.TotalLinesRemoved)
	}
}
