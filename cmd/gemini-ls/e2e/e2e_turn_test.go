package e2e

import (
	"encoding/json"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// A whole turn: list, read, glob, grep, then an edit the user accepts in
// our plugin, with text and thoughts streamed as gemini/update.
func TestTurnListsReadsGlobsGrepsAndEdits(t *testing.T) {
	files := map[string]string{
		"main.go":             "package main\n\n// TODO: localise the greeting.\nfunc greet() string { return \"Hello\" }\n",
		"pkg/util/strings.go": "package util\n",
		".gitignore":          "build/\n",
		"build/out.go":        "package build // TODO ignored\n",
	}
	h := start(t, setup{profile: lsptest.Plugin(), files: files},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Thought: true, Text: "**Surveying** the workspace first."},
			{Text: "Let me look around. "},
			{Call: geminitest.Call("list_directory", map[string]any{"path": "."})},
			{Call: geminitest.Call("read_file", map[string]any{"path": "main.go"})},
			{Call: geminitest.Call("glob", map[string]any{"pattern": "**/*.go"})},
			{Call: geminitest.Call("grep_search", map[string]any{"pattern": "TODO"})},
		}},
		call("replace", map[string]any{"file_path": "main.go", "old_string": "return \"Hello\"", "new_string": "return \"Hi\""}),
		geminitest.TextTurn("Done: ", "greet says Hi."),
	)
	res := h.prompt(map[string]any{"prompt": "make greet say Hi"})
	if res.StopReason != "end_turn" || res.Text != "Let me look around. \n\nDone: greet says Hi." {
		t.Fatalf("result = %+v", res)
	}
	out := h.toolOutputs(1)
	if len(out) != 4 {
		t.Fatalf("tool outputs = %q", out)
	}
	if want := "Directory listing for " + h.root + ":\n[DIR] pkg\n.gitignore (7 bytes)\nmain.go (85 bytes)\n\n(1 ignored)"; out[0] != want {
		t.Errorf("list_directory = %q, want %q", out[0], want)
	}
	contains(t, "read_file", out[1], "// TODO: localise the greeting.")
	contains(t, "glob", out[2], "Found 2 file(s) matching \"**/*.go\"")
	contains(t, "glob ignores build/", out[2], "(1 additional files were ignored)")
	contains(t, "grep_search", out[3], "Found 1 match for pattern \"TODO\"")
	h.wantOutput(2, "Successfully modified file: "+h.path("main.go")+" (1 replacements).")
	buf, _ := h.client.Buffer(h.path("main.go"))
	contains(t, "buffer", buf, `return "Hi"`)
	// Nothing reaches disk that the editor did not save.
	contains(t, "disk", h.readFile("main.go"), `return "Hello"`)

	if th := h.updates("thought"); len(th) != 1 || th[0].Subject != "Surveying" {
		t.Errorf("thought updates = %+v", th)
	}
	if calls := h.updates("toolCall"); len(calls) != 5 || calls[4].Title != "Edit main.go" {
		t.Errorf("toolCall updates = %+v", calls)
	}
	for _, r := range h.updates("toolResult") {
		if r.Status != "ok" {
			t.Errorf("tool result %+v", r)
		}
	}
	var text string
	for _, u := range h.updates("text") {
		text += u.Text
	}
	if text != res.Text {
		t.Errorf("streamed text %q, result text %q", text, res.Text)
	}
	// Token accounting reaches the editor once per model response.
	usage := h.client.Messages("gemini/update")
	var usages int
	for _, m := range usage {
		var u struct {
			Kind        string `json:"kind"`
			TotalTokens *int   `json:"totalTokens"`
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.Kind == "usage" {
			usages++
			if u.TotalTokens == nil || *u.TotalTokens <= 0 {
				t.Errorf("usage update without tokens: %s", m.Params)
			}
		}
	}
	if usages != 3 {
		t.Errorf("%d usage updates, want one per model response (3)", usages)
	}
}
