package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// diagGo has one error the editor shows before any edit.
const diagGo = "package a\n\nfunc B() int { return 1 }\n\nfunc A() int { return missing }\n"

// goTypeChecker plays the editor's Go language server: an error for each
// undefined name the file returns (x, y, missing), a warning for each
// line that says "TODO".
func goTypeChecker(_, text string) []lsptest.Diagnostic {
	var out []lsptest.Diagnostic
	for i, line := range strings.Split(text, "\n") {
		for _, name := range []string{"missing", "x", "y"} {
			if at := strings.Index(line, "return "+name+" "); at >= 0 {
				out = append(out, lsptest.Diagnostic{Line: i, Character: at + len("return "), Severity: 1, Message: "undefined: " + name, Source: "compiler", Code: "UndeclaredName"})
			}
		}
		if at := strings.Index(line, "TODO"); at >= 0 {
			out = append(out, lsptest.Diagnostic{Line: i, Character: at, Severity: 2, Message: "a TODO is left", Source: "lint", Code: 2345678})
		}
	}
	return out
}

// diagnosticsAsked are the uris of each gemini/diagnostics the client was
// sent, in order.
func (h *harness) diagnosticsAsked() [][]string {
	var out [][]string
	for _, p := range messagesAs[struct {
		URIs []string `json:"uris"`
	}](h, "gemini/diagnostics") {
		out = append(out, p.URIs)
	}
	return out
}

// The model's get_diagnostics is answered from the client's
// gemini/diagnostics: the files it names, each by its path in the
// workspace, one line per diagnostic with its 1-based line; a file the
// editor has none for (c.go is not open) says so.
func TestGetDiagnosticsAsksTheEditor(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin().WithDiagnostics(), files: map[string]string{"a.go": diagGo, "b.go": "package a // TODO\n", "c.go": "package a\n"}},
		call("get_diagnostics", map[string]any{"file_paths": []string{"a.go", "b.go", "c.go"}}),
		call("get_diagnostics", map[string]any{}),
		geminitest.TextTurn("one error"))
	h.client.Lint = goTypeChecker
	h.open("a.go")
	h.open("b.go")
	h.prompt(map[string]any{"prompt": "what is wrong?"})

	reqs := h.model.Requests()
	if !slices.Contains(declared(reqs, 0), "get_diagnostics") {
		t.Errorf("declared %v, want get_diagnostics among them", declared(reqs, 0))
	}
	a := "a.go:\nL5:23 error [compiler UndeclaredName] undefined: missing"
	b := "b.go:\nL1:14 warning [lint 2345678] a TODO is left"
	h.wantOutput(1, a+"\n\n"+b+"\n\nc.go: no diagnostics.\n\n"+
		"(An editor has diagnostics only for the files its language servers and linters check, usually those open in it.)")
	h.wantOutput(2, a+"\n\n"+b)
	asked := h.diagnosticsAsked()
	if len(asked) != 2 || !slices.Equal(asked[0], []string{"file://" + h.path("a.go"), "file://" + h.path("b.go"), "file://" + h.path("c.go")}) || len(asked[1]) != 0 {
		t.Errorf("gemini/diagnostics asked of %q, want a.go, b.go and c.go, then every file", asked)
	}
}

// A replace that lands and leaves a new error in the file has that error
// in its result, with its line; the error the file had before, moved
// down a line by the edit, is not new, and a new warning is counted. The
// editor's language server may answer the change at once or a while
// later, as real ones do: until then the editor shows what it showed
// before: 700 ms is longer than two of the server's asks (200 ms apart),
// which agree on the stale answer, and shorter than its bound (1.5 s).
func TestEditResultTellsTheErrorsItBrought(t *testing.T) {
	for _, late := range []time.Duration{0, 700 * time.Millisecond} {
		t.Run(fmt.Sprintf("reported after %s", late), func(t *testing.T) {
			h := start(t, setup{profile: lsptest.Plugin().WithDiagnostics(), files: map[string]string{"a.go": diagGo}},
				call("replace", map[string]any{"file_path": "a.go", "old_string": "func B() int { return 1 }", "new_string": "// TODO\nfunc B() int { return y }"}),
				geminitest.TextTurn("done"))
			lagging := lagsBehindTheEdit(h, late)
			h.client.Lint = func(path, text string) []lsptest.Diagnostic {
				if lagging() {
					text = diagGo // not checked since the edit
				}
				return goTypeChecker(path, text)
			}
			h.open("a.go")
			h.prompt(map[string]any{"prompt": "return y"})

			out := h.toolOutputs(1)
			want := "Successfully modified file: " + h.path("a.go") + " (1 replacements).\n\n" +
				"The editor now shows 1 new error in a.go that it did not show before this change:\n" +
				"L4:23 error [compiler UndeclaredName] undefined: y\n" +
				"It also shows 1 new warning."
			if len(out) != 1 || out[0] != want {
				t.Errorf("replace's result = %q, want %q", out, want)
			}
			// Before the edit, then after it until two answers agree.
			asked := h.diagnosticsAsked()
			if len(asked) < 3 {
				t.Errorf("gemini/diagnostics asked %d times, want a snapshot and at least two answers after", len(asked))
			}
			for _, uris := range asked {
				if !slices.Equal(uris, []string{"file://" + h.path("a.go")}) {
					t.Errorf("gemini/diagnostics asked of %q, want the edited file", uris)
				}
			}
		})
	}
}

// An editor's language server may publish, after an edit landed, the
// diagnostics of a text it saw halfway through (a rename's files landing
// one by one), and the editor shows them until the server checks the
// last text: for 700 ms here, longer than two of the server's asks. An
// editor that knows it (by the version the server names) says pending:
// no such answer is taken, so the model is told the error the edit
// really brought, not the one only the halfway text had. get_diagnostics
// asked meanwhile says its answer may be of an older text.
func TestEditResultWaitsForDiagnosticsOfTheLastText(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin().WithDiagnostics(), files: map[string]string{"a.go": diagGo}},
		call("replace", map[string]any{"file_path": "a.go", "old_string": "func B() int { return 1 }", "new_string": "func B() int { return y }"}),
		call("get_diagnostics", map[string]any{"file_paths": []string{"a.go"}}),
		geminitest.TextTurn("done"))
	late := lagsBehindTheEdit(h, 700*time.Millisecond)
	h.client.Pending = func(string) bool { return late() }
	h.client.Lint = func(path, text string) []lsptest.Diagnostic {
		if late() { // of a text halfway: B returned x
			text = strings.Replace(diagGo, "return 1", "return x ", 1)
		}
		return goTypeChecker(path, text)
	}
	h.open("a.go")
	h.prompt(map[string]any{"prompt": "return y"})

	out := h.toolOutputs(1)
	want := "Successfully modified file: " + h.path("a.go") + " (1 replacements).\n\n" +
		"The editor now shows 1 new error in a.go that it did not show before this change:\n" +
		"L3:23 error [compiler UndeclaredName] undefined: y"
	if len(out) != 1 || out[0] != want {
		t.Errorf("replace's result = %q, want %q", out, want)
	}
	if out := h.toolOutputs(2); len(out) != 1 || strings.Contains(out[0], "pending") || strings.Contains(out[0], "older text") {
		t.Errorf("get_diagnostics after the server caught up = %q", out)
	}
}

// lagsBehindTheEdit has h's client accept each edit, and reports whether
// its language server is still behind the last one: for lag after it
// landed.
func lagsBehindTheEdit(h *harness, lag time.Duration) func() bool {
	var mu sync.Mutex
	var landed time.Time
	h.client.OnApplyEdit = func(ctx context.Context, e lsptest.Edit) lsptest.Answer {
		mu.Lock()
		landed = time.Now()
		mu.Unlock()
		return lsptest.Accept(ctx, e)
	}
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		return !landed.IsZero() && time.Since(landed) < lag
	}
}

// A client that does not declare experimental.gemini.diagnostics is
// never asked: get_diagnostics is not declared (and a call of it says it
// is not available), and an edit's result is the plain one.
func TestNoDiagnosticsWithoutTheCapability(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": diagGo}},
		call("get_diagnostics", map[string]any{}),
		call("replace", map[string]any{"file_path": "a.go", "old_string": "return 1", "new_string": "return y"}),
		geminitest.TextTurn("done"))
	h.client.Lint = goTypeChecker
	h.open("a.go")
	h.prompt(map[string]any{"prompt": "return y"})

	if names := declared(h.model.Requests(), 0); slices.Contains(names, "get_diagnostics") {
		t.Errorf("declared %v, want no get_diagnostics", names)
	}
	if out := h.toolOutputs(1); len(out) != 1 || !strings.HasPrefix(out[0], `error: Tool "get_diagnostics" is not available here`) {
		t.Errorf("get_diagnostics answered %q", out)
	}
	h.wantOutput(2, "Successfully modified file: "+h.path("a.go")+" (1 replacements).")
	if n := len(h.client.Messages("gemini/diagnostics")); n != 0 {
		t.Errorf("the client was sent gemini/diagnostics %d times", n)
	}
}

// Headless and over ACP there is no editor to ask: the tool is not
// declared, and a call of it says plainly that it is not available.
func TestGetDiagnosticsIsNotAvailableHeadlessOrOverACP(t *testing.T) {
	notAvailable := func(t *testing.T, decls []string, answer string) {
		t.Helper()
		if slices.Contains(decls, "get_diagnostics") {
			t.Errorf("declared %v, want no get_diagnostics", decls)
		}
		if !strings.Contains(answer, `Tool "get_diagnostics" is not available here`) || !strings.Contains(answer, "not ACP clients, not headless runs") {
			t.Errorf("get_diagnostics answered %q", answer)
		}
	}
	t.Run("headless", func(t *testing.T) {
		h := newHeadless(t, nil, call("get_diagnostics", map[string]any{}), geminitest.TextTurn("none"))
		h.run("run", "-p", "any errors?").wantExit(t, 0)
		fr := h.responses(1)
		if len(fr) != 1 {
			t.Fatalf("responses %+v", fr)
		}
		notAvailable(t, declared(h.model.Requests(), 0), responseError(fr[0]))
	})
	t.Run("ACP", func(t *testing.T) {
		h := startACP(t, acpSetup{}, call("get_diagnostics", map[string]any{}), geminitest.TextTurn("none"))
		h.mustPrompt("any errors?", sdk.StopReasonEndTurn)
		fr := h.functionResponses(1)
		if len(fr) != 1 {
			t.Fatalf("responses %+v", fr)
		}
		answer, _ := fr[0]["error"].(string)
		notAvailable(t, declared(h.model.Requests(), 0), answer)
	})
}

// The editor answers gemini/diagnostics for every buffer it has open,
// also a file of another project and one .geminiignore keeps from the
// agent: get_diagnostics (of every file, and of a file in the workspace)
// hands the model neither's path nor message, only how many files were
// left out; the workspace's own diagnostics still reach it.
func TestGetDiagnosticsLeavesOutFilesTheModelMayNotRead(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin().WithDiagnostics(), files: map[string]string{
		"a.go": diagGo, ".geminiignore": "secret.go\n", "secret.go": "package a\n\nfunc S() int { return x }\n",
	}},
		call("get_diagnostics", map[string]any{}),
		call("get_diagnostics", map[string]any{"file_paths": []string{"a.go"}}),
		geminitest.TextTurn("one error"))
	h.client.Lint = goTypeChecker
	elsewhere := filepath.Join(t.TempDir(), "otherproject", "elsewhere.go")
	if err := h.client.Open(h.ctx, elsewhere, "package o\n\nfunc O() int { return y }\n"); err != nil {
		t.Fatal(err)
	}
	h.open("a.go")
	h.open("secret.go")
	h.prompt(map[string]any{"prompt": "what is wrong?"})

	a := "a.go:\nL5:23 error [compiler UndeclaredName] undefined: missing"
	h.wantOutput(1, a+"\n\n(The diagnostics of 2 more files were left out: outside the workspace or ignored, so not yours to read.)")
	h.wantOutput(2, a)
	if asked := h.diagnosticsAsked(); len(asked) != 2 || len(asked[0]) != 0 {
		t.Errorf("gemini/diagnostics asked of %q, want every file, then a.go", asked)
	}
	for i, req := range h.model.Requests() {
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse == nil {
					continue
				}
				body, _ := json.Marshal(p.FunctionResponse.Response)
				for _, leak := range []string{"elsewhere", "otherproject", "undefined: y", "secret", "undefined: x"} {
					if strings.Contains(string(body), leak) {
						t.Errorf("request %d's functionResponse holds %q: %s", i, leak, body)
					}
				}
			}
		}
	}
}
