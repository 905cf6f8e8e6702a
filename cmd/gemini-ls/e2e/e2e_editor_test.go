package e2e

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

const (
	fullContextIntro    = "Here is the user's editor context as a JSON object. This is for your information only."
	contextChangesIntro = "Here is a summary of changes in the user's editor context, in JSON format. This is for your information only."
)

// editorContextJSON returns the JSON of the editor context part that
// begins with intro, compacted, and the text of the parts after it; it
// fails the test when the first part is not one.
func editorContextJSON(t *testing.T, parts []string, intro string) (string, []string) {
	t.Helper()
	if len(parts) == 0 {
		t.Fatalf("no parts, want the editor context first")
	}
	fenced, ok := strings.CutPrefix(parts[0], intro+"\n```json\n")
	if !ok || !strings.HasSuffix(fenced, "\n```") {
		t.Fatalf("first part = %q, want %q and a JSON fence", parts[0], intro)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(strings.TrimSuffix(fenced, "\n```"))); err != nil {
		t.Fatalf("the editor context is not JSON: %v\n%s", err, parts[0])
	}
	return b.String(), parts[1:]
}

// lastUserParts is the text of the parts of request i's last content.
func lastUserParts(t *testing.T, model *geminitest.Server, i int) []string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	c := reqs[i].Contents
	return partTexts(c[len(c)-1].Parts)
}

// A session's first prompt tells the model the whole editor context; the
// next tells only what changed since, and one after that with nothing
// changed tells nothing.
func TestEditorContextFullThenOnlyChanges(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode(), files: map[string]string{
		"a.go": "package a\n\nfunc A() int { return 1 }\n",
		"b.go": "package a\n",
		"c.go": "package a\n",
	}}, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	for _, name := range []string{"a.go", "b.go"} {
		if err := h.client.Open(h.ctx, h.path(name), "package a\n\nfunc A() int { return 1 }\n"); err != nil {
			t.Fatal(err)
		}
	}
	aURI := "file://" + h.path("a.go")
	first := h.prompt(map[string]any{"prompt": "explain", "context": map[string]any{
		"uri": aURI, "range": map[string]any{"start": map[string]int{"line": 2, "character": 5}, "end": map[string]int{"line": 2, "character": 5}},
	}})
	got, rest := editorContextJSON(t, lastUserParts(t, h.model, 0), fullContextIntro)
	want := `{"activeFile":{"path":"` + h.path("a.go") + `","cursor":{"line":3,"character":6}},"otherOpenFiles":["` + h.path("b.go") + `"]}`
	if got != want {
		t.Errorf("first prompt's context:\n%s\nwant:\n%s", got, want)
	}
	if len(rest) != 1 || rest[0] != "explain" {
		t.Errorf("parts after the context = %q", rest)
	}

	if err := h.client.Close(h.ctx, h.path("b.go")); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Open(h.ctx, h.path("c.go"), "package a\n"); err != nil {
		t.Fatal(err)
	}
	second := map[string]any{"prompt": "and this?", "sessionId": first.SessionID, "context": map[string]any{
		"uri":   aURI,
		"range": map[string]any{"start": map[string]int{"line": 2, "character": 5}, "end": map[string]int{"line": 2, "character": 8}},
		"diagnostics": []any{map[string]any{
			"range":    map[string]any{"start": map[string]int{"line": 2, "character": 5}, "end": map[string]int{"line": 2, "character": 6}},
			"severity": 2, "message": "A is unused", "source": "lint",
		}},
	}}
	h.prompt(second)
	got, rest = editorContextJSON(t, lastUserParts(t, h.model, 1), contextChangesIntro)
	want = `{"changes":{"filesOpened":["` + h.path("c.go") + `"],"filesClosed":["` + h.path("b.go") + `"],` +
		`"selectionChanged":{"path":"` + h.path("a.go") + `","selectedText":"A()"},` +
		`"diagnosticsChanged":{"path":"` + h.path("a.go") + `","diagnostics":[{"line":3,"character":6,"severity":"warning","message":"A is unused","source":"lint"}]}}}`
	if got != want {
		t.Errorf("second prompt's context:\n%s\nwant:\n%s", got, want)
	}
	if len(rest) != 1 || rest[0] != "and this?" {
		t.Errorf("parts after the changes = %q", rest)
	}
	// The history keeps what the first prompt told.
	if c := withoutSessionContext(h.model.Requests()[1].Contents)[0]; !strings.HasPrefix(c.Parts[0].Text, fullContextIntro) {
		t.Errorf("second request's history starts %q", c.Parts[0].Text)
	}

	second["prompt"] = "thanks"
	h.prompt(second)
	if parts := lastUserParts(t, h.model, 2); len(parts) != 1 || parts[0] != "thanks" {
		t.Errorf("nothing changed, yet the third prompt sent %q", parts)
	}
}

// A client may list the open files itself, most recently used first; files
// outside the workspace are left out, and a list that is not file URIs is
// refused.
func TestEditorContextClientOpenFiles(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": "package a\n", "b.go": "package a\n"}},
		geminitest.TextTurn("ok"))
	if err := h.client.Open(h.ctx, h.path("a.go"), "package a\n"); err != nil {
		t.Fatal(err)
	}
	h.prompt(map[string]any{"prompt": "hi", "context": map[string]any{
		"openFiles": []string{"file://" + h.path("b.go"), "file:///elsewhere/notes.txt", "file://" + h.path("a.go")},
	}})
	got, _ := editorContextJSON(t, lastUserParts(t, h.model, 0), fullContextIntro)
	if want := `{"otherOpenFiles":["` + h.path("b.go") + `","` + h.path("a.go") + `"]}`; got != want {
		t.Errorf("context:\n%s\nwant:\n%s", got, want)
	}

	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "hi", "context": map[string]any{"openFiles": []string{"untitled:Untitled-1"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "context.openFiles[0]") || !strings.Contains(err.Error(), "only file:// URIs") {
		t.Errorf("a non-file open file: %v", err)
	}
}
