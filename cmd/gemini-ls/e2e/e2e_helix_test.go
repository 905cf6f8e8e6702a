package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

const todoGo = "package a\n\n// TODO: localise the greeting.\nfunc greet() string { return \"Hello\" }\n\nfunc A() int { return 1 }\n"

type wireCodeAction struct {
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Command struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
}

func (h *harness) codeActions(params map[string]any) []wireCodeAction {
	h.t.Helper()
	var actions []wireCodeAction
	if err := h.client.Call(h.ctx, "textDocument/codeAction", params, &actions); err != nil {
		h.t.Fatalf("textDocument/codeAction: %v", err)
	}
	return actions
}

func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}}
}

// Helix has no plugins: code actions titled from the diagnostics,
// selection and TODO at hand run gemini.prompt through executeCommand.
func TestHelixCodeActions(t *testing.T) {
	h := start(t, setup{profile: lsptest.Helix(), files: map[string]string{"a.go": todoGo}}, geminitest.TextTurn("Fixed."))
	h.open("a.go")
	uri := "file://" + h.path("a.go")
	diag := map[string]any{"range": rng(5, 5, 5, 6), "severity": 1, "message": "A redeclared in this block", "source": "compiler"}

	t.Run("titles", func(t *testing.T) {
		// Helix's block cursor covers one character: not a selection.
		cursorOnTODO := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(2, 4, 2, 5), "context": map[string]any{"diagnostics": []any{}}})
		if len(cursorOnTODO) != 1 || cursorOnTODO[0].Title != "Gemini: implement the TODO “localise the greeting.” (a.go)" || cursorOnTODO[0].Kind != "refactor.rewrite" {
			t.Errorf("actions on the TODO line = %+v", cursorOnTODO)
		}
		// eglot sends the word at point: not a selection either.
		word := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(3, 5, 3, 10), "context": map[string]any{"diagnostics": []any{}}})
		if len(word) != 0 {
			t.Errorf("actions on the word at point = %+v", word)
		}
		selection := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(3, 0, 5, 10), "context": map[string]any{"diagnostics": []any{diag}}})
		var titles []string
		for _, a := range selection {
			titles = append(titles, a.Kind+"|"+a.Title)
			if a.Command.Command != "gemini.prompt" {
				t.Errorf("action %q runs %q", a.Title, a.Command.Command)
			}
		}
		want := "quickfix|Gemini: fix “A redeclared in this block” (a.go, lines 4–6),|Gemini: explain the selected code (a.go, lines 4–6)"
		if strings.Join(titles, ",") != want {
			t.Errorf("titles = %q, want %q", titles, want)
		}
		none := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(0, 0, 0, 0), "context": map[string]any{"diagnostics": []any{}}})
		if len(none) != 0 {
			t.Errorf("actions with nothing at hand = %+v", none)
		}
		only := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(3, 0, 5, 10), "context": map[string]any{"diagnostics": []any{diag}, "only": []string{"quickfix"}}})
		if len(only) != 1 || only[0].Kind != "quickfix" {
			t.Errorf("only quickfix = %+v", only)
		}
	})

	t.Run("running the fix", func(t *testing.T) {
		fix := h.codeActions(map[string]any{"textDocument": map[string]any{"uri": uri}, "range": rng(5, 0, 5, 0), "context": map[string]any{"diagnostics": []any{diag}}})[0]
		var arg map[string]any
		if err := json.Unmarshal(fix.Command.Arguments[0], &arg); err != nil {
			t.Fatal(err)
		}
		if _, msg := h.command(arg); msg != "Gemini: Fixed." {
			t.Errorf("answer = %q", msg)
		}
		got, rest := editorContextJSON(t, lastUserParts(t, h.model, 0), fullContextIntro)
		contains(t, "editor context", got, `"activeFile":{"path":"`+h.path("a.go")+`"`)
		contains(t, "editor context", got, `{"line":6,"character":6,"severity":"error","message":"A redeclared in this block","source":"compiler"}`)
		contains(t, "prompt", strings.Join(rest, "\n"), "Fix the diagnostics the editor shows here in a.go.")
		if n := len(h.client.Messages("$/progress")); n < 2 {
			t.Errorf("%d progress messages", n)
		}
	})

	t.Run("bad params", func(t *testing.T) {
		err := h.client.Call(h.ctx, "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}}, nil)
		if err == nil || !strings.Contains(err.Error(), `"range"`) {
			t.Errorf("codeAction without range: %v", err)
		}
	})
}
