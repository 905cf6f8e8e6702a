package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
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

func TestCancelRequestAbortsTheModelCall(t *testing.T) {
	h := start(t, setup{files: map[string]string{"a.go": "x := \n"}}, geminitest.Turn{Hang: true, Chunks: []geminitest.Chunk{{Text: "slow"}}})
	if err := h.client.Open(h.ctx, h.path("a.go"), "x := \n"); err != nil {
		t.Fatal(err)
	}
	if err := h.client.RawCall("c1", "textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": string(uri.File(h.path("a.go")))},
		"position":     map[string]any{"line": 0, "character": 5},
		"context":      map[string]any{"triggerKind": 1},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.model.WaitRequests(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notify(h.ctx, "$/cancelRequest", map[string]any{"id": "raw-c1"}); err != nil {
		t.Fatal(err)
	}
	if aborts, err := h.model.WaitAborts(h.ctx, 1); err != nil || aborts[0].Seq != 1 {
		t.Fatalf("the model call was not aborted: %v %+v", err, aborts)
	}
	answer, err := h.client.RawResponse(h.ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(answer), "-32800") {
		t.Errorf("the cancelled request answered %s, want RequestCancelled", answer)
	}
}

func TestCompletionFeedbackInStats(t *testing.T) {
	h := start(t, setup{files: map[string]string{"a.go": "x := \n"}}, geminitest.TextTurn("compute()"))
	if err := h.client.Open(h.ctx, h.path("a.go"), "x := \n"); err != nil {
		t.Fatal(err)
	}
	got := h.inline("a.go", 0, 5, 2)
	if len(got.Items) != 1 || got.Items[0].Command.Command != "gemini.acceptCompletion" {
		t.Fatalf("items %+v, want one carrying the accept command", got.Items)
	}
	item := got.Items[0]
	if err := h.client.Notify(h.ctx, "textDocument/didShowCompletion", map[string]any{"item": item}); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notify(h.ctx, "textDocument/didPartiallyAcceptCompletion", map[string]any{"item": item, "acceptedLength": 7}); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Call(h.ctx, "workspace/executeCommand", map[string]any{"command": item.Command.Command, "arguments": item.Command.Arguments}, nil); err != nil {
		t.Fatal(err)
	}
	res := h.prompt(map[string]any{"prompt": "/stats"})
	contains(t, "/stats", res.Text, "- Suggestions: 1 shown, 1 accepted, 1 partially accepted")
	contains(t, "/stats", res.Text, "- Requests: 1, of which 1 asked the model, 0 answered from the cache, 0 dropped as stale")
}

// inlineEdits is textDocument/copilotInlineEdit's answer (and
// gemini/nextEdit's).
type inlineEdits struct {
	Edits []struct {
		Range struct {
			Start wirePos `json:"start"`
			End   wirePos `json:"end"`
		} `json:"range"`
		Text         string `json:"text"`
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
		Command struct {
			Command   string `json:"command"`
			Arguments []any  `json:"arguments"`
		} `json:"command"`
	} `json:"edits"`
}

func (h *harness) inlineEdit(method, name string, version, line, char int) inlineEdits {
	h.t.Helper()
	var got inlineEdits
	if err := h.client.Call(h.ctx, method, map[string]any{
		"textDocument": map[string]any{"uri": string(uri.File(h.path(name))), "version": version},
		"position":     map[string]any{"line": line, "character": char},
	}, &got); err != nil {
		h.t.Fatalf("%s: %v", method, err)
	}
	return got
}

// A Copilot client (copilot-lsp.nvim, sidekick.nvim) asks for the next
// edit with textDocument/copilotInlineEdit: the user renamed a variable
// where it is declared, and the next edit renames its next use, sixty
// lines down, then the one after it, from the same model answer.
func TestCopilotInlineEditCarriesARenameOn(t *testing.T) {
	var b strings.Builder
	b.WriteString("func report(items []Item) string {\n\tcount := len(items)\n")
	for i := range 60 {
		fmt.Fprintf(&b, "\t// step %d\n", i)
	}
	b.WriteString("\tlog.Printf(\"%d items\", count)\n\treturn fmt.Sprint(count)\n}\n")
	before := b.String()
	after := strings.Replace(before, "\tcount := len", "\ttotal := len", 1)
	h := start(t, setup{files: map[string]string{"report.go": before}}, geminitest.Turn{From: func(r geminitest.Request) geminitest.Turn {
		if !strings.Contains(requestText(r), "-count\n+total") {
			return geminitest.TextTurn("no recent edit in the prompt")
		}
		return geminitest.TextTurn("<|search|>\n\treturn fmt.Sprint(count)\n<|replace|>\n\treturn fmt.Sprint(total)\n<|end|>\n" +
			"<|search|>\n\tlog.Printf(\"%d items\", count)\n<|replace|>\n\tlog.Printf(\"%d items\", total)\n<|end|>\n")
	}})
	if err := h.client.Notify(h.ctx, "textDocument/didFocus", map[string]any{"textDocument": map[string]any{"uri": string(uri.File(h.path("report.go")))}}); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Open(h.ctx, h.path("report.go"), before); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Type(h.ctx, h.path("report.go"), after); err != nil {
		t.Fatal(err)
	}
	got := h.inlineEdit("textDocument/copilotInlineEdit", "report.go", 2, 1, 6)
	if len(got.Edits) != 1 {
		t.Fatalf("edits %+v, want one", got.Edits)
	}
	e := got.Edits[0]
	if e.Text != "total" || e.Range.Start != (wirePos{62, 24}) || e.Range.End != (wirePos{62, 29}) {
		t.Errorf("edit %+v, want count → total at 62:24, the next use", e)
	}
	if e.TextDocument.URI != string(uri.File(h.path("report.go"))) || e.TextDocument.Version != 2 {
		t.Errorf("edit of %+v, want report.go at version 2", e.TextDocument)
	}
	if e.Command.Command != "gemini.acceptCompletion" {
		t.Errorf("command %+v, want the accept command", e.Command)
	}
	if err := h.client.Notify(h.ctx, "textDocument/didShowInlineEdit", map[string]any{"item": map[string]any{"command": e.Command}}); err != nil {
		t.Fatal(err)
	}
	// The user takes it; the use after it is foreseen already.
	if err := h.client.Type(h.ctx, h.path("report.go"), strings.Replace(after, `items", count)`, `items", total)`, 1)); err != nil {
		t.Fatal(err)
	}
	got = h.inlineEdit("gemini/nextEdit", "report.go", 3, 62, 29)
	if len(got.Edits) != 1 || got.Edits[0].Text != "total" || got.Edits[0].Range.Start != (wirePos{63, 19}) || got.Edits[0].TextDocument.Version != 3 {
		t.Fatalf("then edits %+v, want count → total at 63:19 of version 3", got.Edits)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
	res := h.prompt(map[string]any{"prompt": "/stats"})
	contains(t, "/stats", res.Text, "- Suggestions: 1 shown")
}

func TestCompletionOffers(t *testing.T) {
	caps := func(h *harness) map[string]any { c, _ := h.initialized["capabilities"].(map[string]any); return c }
	h := start(t, setup{})
	if c := caps(h); c["inlineCompletionProvider"] == nil || c["completionProvider"] != nil {
		t.Errorf("by default: %v", c)
	}
	h = start(t, setup{opts: map[string]any{"inlineCompletion": map[string]any{"enabled": false}}})
	if c := caps(h); c["inlineCompletionProvider"] != nil || c["completionProvider"] != nil {
		t.Errorf("turned off: %v", c)
	}
}

func TestCompletionItemForEditorsWithoutInlineCompletion(t *testing.T) {
	h := start(t, setup{files: map[string]string{"a.py": "def f():\n    \n"}, opts: map[string]any{"inlineCompletion": map[string]any{"completionItems": true}}},
		geminitest.TextTurn("return 42"))
	if c, _ := h.initialized["capabilities"].(map[string]any); c["completionProvider"] == nil {
		t.Fatalf("no completionProvider with completionItems on: %v", c)
	}
	if err := h.client.Open(h.ctx, h.path("a.py"), "def f():\n    \n"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		IsIncomplete bool `json:"isIncomplete"`
		Items        []struct {
			Label         string `json:"label"`
			Detail        string `json:"detail"`
			Documentation struct {
				Kind  string `json:"kind"`
				Value string `json:"value"`
			} `json:"documentation"`
			TextEdit struct {
				NewText string `json:"newText"`
				Range   struct {
					Start wirePos `json:"start"`
				} `json:"range"`
			} `json:"textEdit"`
		} `json:"items"`
	}
	if err := h.client.Call(h.ctx, "textDocument/completion", map[string]any{
		"textDocument": map[string]any{"uri": string(uri.File(h.path("a.py")))},
		"position":     map[string]any{"line": 1, "character": 4},
	}, &got); err != nil {
		t.Fatal(err)
	}
	if !got.IsIncomplete || len(got.Items) != 1 || got.Items[0].Label != "return 42" || got.Items[0].Detail != "Gemini" ||
		got.Items[0].TextEdit.NewText != "return 42" || got.Items[0].TextEdit.Range.Start != (wirePos{1, 4}) ||
		got.Items[0].Documentation.Kind != "markdown" || got.Items[0].Documentation.Value != "```plaintext\nreturn 42\n```" {
		t.Errorf("completion %+v", got)
	}
}

func TestCompletionWithoutCredentialsIsQuiet(t *testing.T) {
	h := start(t, setup{noKey: true, files: map[string]string{"a.go": "x := \n"}})
	if err := h.client.Open(h.ctx, h.path("a.go"), "x := \n"); err != nil {
		t.Fatal(err)
	}
	if got := h.inline("a.go", 0, 5, 1); len(got.Items) != 0 {
		t.Errorf("items %+v without credentials", got.Items)
	}
}

func TestCompletionFollowsChangedSettings(t *testing.T) {
	h := start(t, setup{files: map[string]string{"a.go": "x := \n"}})
	if err := h.client.Open(h.ctx, h.path("a.go"), "x := \n"); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notify(h.ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"inlineCompletion": map[string]any{"languages": map[string]any{"go": false}}}}); err != nil {
		t.Fatal(err)
	}
	if got := h.inline("a.go", 0, 5, 1); len(got.Items) != 0 {
		t.Errorf("items %+v after completion was turned off for Go", got.Items)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// textDocument/didFocus, in copilot.vim's older form {"uri"} too, says
// which document the user looked at: it lends the prompts a snippet, as a
// document edited lately does, though it is of another language.
func TestDidFocusLendsTheViewedDocument(t *testing.T) {
	h := start(t, setup{files: map[string]string{"main.go": "package main\n", "schema.sql": "CREATE TABLE prices (cents INTEGER);\n"}}, geminitest.TextTurn("x"))
	for name, text := range map[string]string{"main.go": "package main\n\nvar q = \n", "schema.sql": "CREATE TABLE prices (cents INTEGER);\n"} {
		if err := h.client.Open(h.ctx, h.path(name), text); err != nil {
			t.Fatal(err)
		}
	}
	for _, params := range []map[string]any{{}, {"uri": string(uri.File(h.path("schema.sql")))}, {"textDocument": map[string]any{"uri": "untitled:Untitled-1"}}} {
		if err := h.client.Notify(h.ctx, "textDocument/didFocus", params); err != nil {
			t.Fatal(err)
		}
	}
	h.inline("main.go", 2, 8, 1)
	if prompt := requestText(h.model.Requests()[0]); !strings.Contains(prompt, "CREATE TABLE prices") {
		t.Errorf("the prompt lacks the document looked at:\n%s", prompt)
	}
}
