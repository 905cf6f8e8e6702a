package completion

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/settings"
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
