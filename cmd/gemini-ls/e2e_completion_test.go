package main

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

// inlineList is textDocument/inlineCompletion's answer.
type inlineList struct {
	Items []struct {
		InsertText string `json:"insertText"`
		Range      struct {
			Start wirePos `json:"start"`
			End   wirePos `json:"end"`
		} `json:"range"`
		Command struct {
			Command   string `json:"command"`
			Arguments []any  `json:"arguments"`
		} `json:"command"`
	} `json:"items"`
}

type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func (h *harness) inline(name string, line, char, trigger int) inlineList {
	h.t.Helper()
	var got inlineList
	if err := h.client.Call(h.ctx, "textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": string(uri.File(h.path(name)))},
		"position":     map[string]any{"line": line, "character": char},
		"context":      map[string]any{"triggerKind": trigger},
	}, &got); err != nil {
		h.t.Fatalf("inlineCompletion: %v", err)
	}
	return got
}

func requestText(r geminitest.Request) string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestInlineCompletionFromTheUnsavedBuffer(t *testing.T) {
	h := start(t, setup{files: map[string]string{"main.go": "package main\n"}}, geminitest.TextTurn("```go\nfmt.Println(total)\n```"))
	unsaved := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := 3\n\t\n}\n"
	if err := h.client.Open(h.ctx, h.path("main.go"), unsaved); err != nil {
		t.Fatal(err)
	}
	got := h.inline("main.go", 6, 1, 1)
	if len(got.Items) != 1 || got.Items[0].InsertText != "fmt.Println(total)" {
		t.Fatalf("items %+v, want fmt.Println(total)", got.Items)
	}
	if r := got.Items[0].Range; r.Start.Line != 6 || r.Start.Character != 1 || r.End != r.Start {
		t.Errorf("range %+v, want the cursor", r)
	}
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	r := reqs[0]
	if !strings.Contains(requestText(r), "total := 3\n\t<|cursor|>\n}") {
		t.Errorf("the prompt does not hold the unsaved buffer around the cursor:\n%s", requestText(r))
	}
	if r.Model != "gemini-3.5-flash-lite" || r.GenerationConfig == nil || r.GenerationConfig.ThinkingConfig == nil ||
		r.GenerationConfig.ThinkingConfig.ThinkingBudget == nil || *r.GenerationConfig.ThinkingConfig.ThinkingBudget != 0 ||
		r.GenerationConfig.MaxOutputTokens != 256 {
		b, _ := json.Marshal(r.GenerationConfig)
		t.Errorf("model %s, config %s: want gemini-3.5-flash-lite, thinking off, 256 tokens", r.Model, b)
	}
}
