package completion

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func TestThePromptShowsWhatTheUserDid(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.TextTurn("x"))
	r.e.SetBackend(Backend{Model: r.e.currentBackend().Model, Project: func() string { return "Use tabs. Errors are wrapped." }})
	r.open("util.go", "package main\n\nfunc helper() int { return 1 }\n|")
	r.change("util.go", "package main\n\nfunc helper(n int) int { return n }\n")
	req := r.open("main.go", "package main\n\nfunc main() {\n\t|\n}\n")
	req.Diagnostics = []Diagnostic{{Line: 3, Severity: "error", Message: "not enough arguments in call to helper"}, {Line: 90, Message: "far away"}}
	r.complete(req)
	prompt := requestPrompt(t, r.model)
	for _, want := range []string{
		"<project_context>\nUse tabs. Errors are wrapped.\n</project_context>",
		"<recent_edits>\n--- util.go:3\n-) int { return 1\n+n int) int { return n\n</recent_edits>",
		"<related_file path=\"util.go\">\npackage main\n\nfunc helper(n int) int { return n }",
		"<diagnostics>\nline 4: error: not enough arguments in call to helper\n</diagnostics>",
		"<file path=\"main.go\" language=\"go\">\npackage main\n\nfunc main() {\n\t<|cursor|>\n}\n\n</file>",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "far away") {
		t.Error("a diagnostic far from the cursor is in the prompt")
	}
	if sys := r.model.Requests()[0].SystemInstruction.Parts[0].Text; !strings.Contains(sys, cursorMarker) {
		t.Errorf("the system instruction does not explain the marker: %s", sys)
	}
}

func requestPrompt(t *testing.T, m *geminitest.Server) string {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	return reqs[len(reqs)-1].Contents[0].Parts[0].Text
}

// A document the user looked at lately (didFocus) lends a snippet, as one
// they edited does, though it is of another language.
func TestThePromptShowsWhatTheUserLookedAt(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil, geminitest.TextTurn("x"), geminitest.TextTurn("y"))
	schema := r.path("schema.sql")
	r.docs.Open(workspace.Document{Path: schema, URI: "file://" + schema, LanguageID: "sql", Version: 1, Text: "CREATE TABLE prices (cents INTEGER);\n"})
	r.complete(r.open("main.go", "package main\n\nfunc main() {\n\t|\n}\n"))
	if prompt := requestPrompt(t, r.model); strings.Contains(prompt, "CREATE TABLE") {
		t.Fatalf("a document of another language, neither edited nor looked at, is in the prompt:\n%s", prompt)
	}
	r.e.Focused(schema)
	r.complete(r.open("main.go", "package main\n\nfunc main() {\n\tq := |\n}\n"))
	if prompt := requestPrompt(t, r.model); !strings.Contains(prompt, "<related_file path=\"schema.sql\">\nCREATE TABLE prices (cents INTEGER);") {
		t.Errorf("the document looked at is not in the prompt:\n%s", prompt)
	}
}
