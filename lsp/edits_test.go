package lsp

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// decide classifies what the document holds after an applyEdit exchange,
// whatever the client answered.
func TestDecideReadsTheDocument(t *testing.T) {
	const path = "/w/a.go"
	change := workspace.FileChange{Path: path, Exists: true, Open: true, Version: 1, Before: "one\n", After: "two\n"}
	reason := "version mismatch"
	for _, tc := range []struct {
		name    string
		text    *string // the open document; nil when closed and absent from disk
		res     protocol.ApplyWorkspaceEditResult
		want    tools.Outcome
		content string
	}{
		{"applied", ptr("two\n"), protocol.ApplyWorkspaceEditResult{Applied: true}, tools.Applied, "two\n"},
		{"applied though the client said no (eglot's null)", ptr("two\n"), protocol.ApplyWorkspaceEditResult{}, tools.Applied, "two\n"},
		{"declined", ptr("one\n"), protocol.ApplyWorkspaceEditResult{}, tools.Declined, ""},
		{"said applied but unchanged (Neovim's skipped stale edit)", ptr("one\n"), protocol.ApplyWorkspaceEditResult{Applied: true}, tools.Declined, ""},
		{"modified by the user", ptr("three\n"), protocol.ApplyWorkspaceEditResult{Applied: true}, tools.Modified, "three\n"},
		{"moved on and refused", ptr("one!\n"), protocol.ApplyWorkspaceEditResult{FailureReason: &reason}, tools.Stale, ""},
		{"applied out of sight", nil, protocol.ApplyWorkspaceEditResult{Applied: true}, tools.Applied, "two\n"},
		{"declined out of sight", nil, protocol.ApplyWorkspaceEditResult{}, tools.Declined, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{docs: workspace.NewDocuments()}
			if tc.text != nil {
				s.docs.Open(workspace.Document{Path: path, URI: "file://" + path, Version: 2, Text: *tc.text})
			}
			d := (&editProposer{s: s}).decide(change, tc.res)
			if d.Outcome != tc.want || d.Content != tc.content {
				t.Errorf("decision = %+v, want %s with content %q", d, tc.want, tc.content)
			}
		})
	}
}

func ptr(s string) *string { return &s }
