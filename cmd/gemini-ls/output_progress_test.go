package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// In text, what the run did is said on stderr, a line each, as it
// happens: each call that ran, each file written (named from the run's
// directory), each call that did not run by the first line of why, with
// nothing after it (a refused edit's diff is the json formats'). Stdout
// keeps the answer alone. The json formats leave the progress out, as
// Gemini CLI 0.61's do.
func TestTextSaysWhatTheRunDid(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w")
	elsewhere := filepath.Join(t.TempDir(), "z.txt")
	run := func(format string) (stdout, stderr string) {
		var out, errOut bytes.Buffer
		r, err := newReport(format, &out, &errOut)
		if err != nil {
			t.Fatal(err)
		}
		r.runsIn(dir)
		ctx, main := context.Background(), dialog.Subagent{}
		r.begin("s1", "gemini-test", "hi")
		out.Reset()
		r.Show(ctx, main, dialog.TextEvent{Text: "Looking"})
		r.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "1", Name: "grep_search", Title: `SearchText "TODO"`}})
		r.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "1", Name: "grep_search", Status: dialog.StatusOK, Display: "Found 2 matches"}})
		r.landed(workspace.FileChange{Path: filepath.Join(dir, "a.txt"), Exists: true, Before: "a\n", After: "b\n"})
		r.landed(workspace.FileChange{Path: filepath.Join(dir, "sub", "new.txt"), After: "x\ny\n"})
		r.landed(workspace.FileChange{Path: elsewhere, After: "z\n"})
		r.Show(ctx, main, dialog.ToolCallEvent{Call: dialog.ToolCall{CallID: "2", Name: "replace", Title: "Edit a.txt"}})
		r.Show(ctx, main, dialog.ToolResultEvent{Result: dialog.ToolResult{CallID: "2", Name: "replace", Status: dialog.StatusRejected,
			Display: "Not applied: edits need confirmation.\n\n--- a.txt\n+++ a.txt\n-a\n+b\n"}})
		if format == "text" {
			return out.String(), errOut.String()
		}
		return "", errOut.String()
	}
	stdout, stderr := run("text")
	want := "\ngemini-ls: \u2713 grep_search (SearchText \"TODO\")\n" +
		"gemini-ls: edited a.txt (+1 -1)\n" +
		"gemini-ls: created " + filepath.Join("sub", "new.txt") + " (+2)\n" +
		"gemini-ls: created " + elsewhere + " (+1)\n" +
		"gemini-ls: replace (Edit a.txt) was refused: Not applied: edits need confirmation.\n"
	if stdout != "Looking" || stderr != want {
		t.Errorf("text: stdout %q, stderr\n%s\nwant stdout %q, stderr\n%s", stdout, stderr, "Looking", want)
	}
	for _, format := range []string{"json", "stream-json"} {
		if _, stderr := run(format); stderr != "gemini-ls: replace (Edit a.txt) was refused: Not applied: edits need confirmation.\n" {
			t.Errorf("%s: stderr %q, want the refusal alone", format, stderr)
		}
	}
}
