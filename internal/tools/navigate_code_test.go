package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// fakeServer is a codeintel.Provider answering each operation with the
// JSON its answer function makes, recording the requests.
type fakeServer struct {
	asked  []codeintel.Request
	answer func(req codeintel.Request) (string, error)
	caveat string // each answer's
}

func (f *fakeServer) Ask(_ context.Context, req codeintel.Request) (codeintel.Answer, error) {
	f.asked = append(f.asked, req)
	out, err := f.answer(req)
	if err != nil {
		return codeintel.Answer{}, err
	}
	return codeintel.Answer{Result: json.RawMessage(out), Encoding: workspace.UTF16, Source: "fakels", Caveat: f.caveat}, nil
}

// wantErrorHas checks res failed with an error holding want.
func wantErrorHas(t *testing.T, res Result, want string) {
	t.Helper()
	if res.Error == "" {
		t.Fatalf("no error; output %q", res.Output)
	}
	wantContains(t, res.Error, want)
}

func loc(path string, line, char int) string {
	return fmt.Sprintf(`{"uri": %q, "range": {"start": {"line": %d, "character": %d}, "end": {"line": %d, "character": %d}}}`, codeintel.URIOf(path), line, char, line, char+5)
}

const greetGo = "package greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"hi \" + name\n}\n"
const mainGo = "package main\n\nfunc main() {\n\t// «Greet» twice: Greet(Greet(\"x\"))\n\tprintln(greet.Greet(greet.Greet(\"x\")))\n\tprintln(greet.Greet(\"y\"))\n}\n"

func codeWorkspace(t *testing.T) *testWorkspace {
	return newTestWorkspace(t, map[string]string{
		"greet/greet.go": greetGo,
		"main.go":        mainGo,
		"secret/s.go":    "package secret\nvar _ = greet.Greet\n",
		".geminiignore":  "secret/\n",
	})
}

// The model names a line and the symbol on it; the server is asked at
// the symbol's start, in its encoding (UTF-16 here: the line holds
// «», one UTF-16 unit but two bytes each, before the symbol).
func TestNavigateCodeFindsTheSymbolOnTheLine(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(codeintel.Request) (string, error) { return "[]", nil }}
	tool := tw.tool(NavigateCodeName, Options{CodeIntel: f})

	run(t, tool, map[string]any{"operation": "definition", "file_path": "main.go", "line": 5, "symbol": "greet", "occurrence": 2})
	req := f.asked[0]
	if req.Op != codeintel.Definition || req.Path != tw.abs("main.go") {
		t.Fatalf("asked %+v", req)
	}
	// "\tprintln(greet.Greet(greet.Greet" : the second "greet" at byte 21.
	if got := req.ToEncoding(workspace.UTF16); got != (workspace.Position{Line: 4, Character: 21}) {
		t.Errorf("position %+v, want line 4 character 21", got)
	}

	// On line 4 the symbol sits after «, which is 2 bytes, 1 UTF-16 unit.
	run(t, tool, map[string]any{"operation": "references", "file_path": "main.go", "line": 4, "symbol": "Greet", "occurrence": 1})
	req = f.asked[1]
	if req.Position != (workspace.Position{Line: 3, Character: 6}) {
		t.Errorf("byte position %+v, want line 3 byte 6", req.Position)
	}
	if got := req.ToEncoding(workspace.UTF16); got != (workspace.Position{Line: 3, Character: 5}) {
		t.Errorf("UTF-16 position %+v, want line 3 character 5", got)
	}
}

func TestNavigateCodeSaysWhereTheSymbolIsNot(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(codeintel.Request) (string, error) { return "[]", nil }}
	tool := tw.tool(NavigateCodeName, Options{CodeIntel: f})

	res := run(t, tool, map[string]any{"operation": "references", "file_path": "greet/greet.go", "line": 2, "symbol": "Greet"})
	wantErrorHas(t, res, `"Greet" is not on line 2`)
	wantErrorHas(t, res, "It is on lines 3, 4.")

	res = run(t, tool, map[string]any{"operation": "references", "file_path": "main.go", "line": 6, "symbol": "Gree"})
	wantErrorHas(t, res, `"Gree" is not on line 6`) // a part of a word is not the word

	res = run(t, tool, map[string]any{"operation": "references", "file_path": "main.go", "line": 5, "symbol": "Greet"})
	wantErrorHas(t, res, `"Greet" appears 2 times on line 5`)
	wantErrorHas(t, res, "'occurrence'")

	res = run(t, tool, map[string]any{"operation": "references", "file_path": "main.go", "line": 99, "symbol": "Greet"})
	wantError(t, res, "Line 99 is not in the file, which has 7 lines.")
	if len(f.asked) != 0 {
		t.Errorf("the server was asked %d times about symbols not found", len(f.asked))
	}
}

// References are listed under their files, relative, each line once
// with its text; places outside the workspace or in ignored files are
// left out and counted.
func TestNavigateCodeListsPlacesByFile(t *testing.T) {
	tw := codeWorkspace(t)
	outside := t.TempDir() + "/other.go"
	f := &fakeServer{answer: func(codeintel.Request) (string, error) {
		return "[" + strings.Join([]string{
			loc(tw.abs("main.go"), 5, 15), loc(tw.abs("main.go"), 4, 21), loc(tw.abs("main.go"), 4, 9),
			loc(tw.abs("greet/greet.go"), 3, 5), loc(tw.abs("secret/s.go"), 1, 15), loc(outside, 0, 0),
		}, ",") + "]", nil
	}}
	tool := tw.tool(NavigateCodeName, Options{CodeIntel: f})
	res := run(t, tool, map[string]any{"operation": "references", "file_path": "greet/greet.go", "line": 4, "symbol": "Greet"})
	want := "6 references to Greet (from fakels):\n" +
		"greet/greet.go\n" +
		"  4: func Greet(name string) string {\n" +
		"main.go\n" +
		"  5: \tprintln(greet.Greet(greet.Greet(\"x\")))\n" +
		"  6: \tprintln(greet.Greet(\"y\"))\n" +
		"(2 places outside the workspace or in ignored files were left out.)"
	wantOutput(t, res, want)
	if strings.Contains(res.Output, "secret") {
		t.Errorf("an ignored file was named:\n%s", res.Output)
	}
}

func TestNavigateCodeCutsLongAnswers(t *testing.T) {
	var lines []string
	for i := range maxCodeLines + 20 {
		lines = append(lines, fmt.Sprintf("var v%d = Greet", i))
	}
	tw := newTestWorkspace(t, map[string]string{"a.go": strings.Join(lines[:60], "\n") + "\n", "b.go": strings.Join(lines[60:], "\n") + "\n"})
	f := &fakeServer{answer: func(codeintel.Request) (string, error) {
		var locs []string
		for i := range 60 {
			locs = append(locs, loc(tw.abs("a.go"), i, 10))
		}
		for i := range maxCodeLines + 20 - 60 {
			locs = append(locs, loc(tw.abs("b.go"), i, 10))
		}
		return "[" + strings.Join(locs, ",") + "]", nil
	}}
	res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "references", "file_path": "a.go", "line": 1, "symbol": "Greet"})
	wantContains(t, res.Output, "120 references to Greet")
	wantContains(t, res.Output, "\n(20 more lines not shown: narrow the question to see them.)")
	if n := strings.Count(res.Output, "= Greet"); n != maxCodeLines {
		t.Errorf("%d lines listed, want %d", n, maxCodeLines)
	}
}

func TestNavigateCodeHoverIsTheSignatureAndFirstParagraph(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
		if req.Op == codeintel.Definition {
			return "[" + loc(tw.abs("greet/greet.go"), 3, 5) + "]", nil
		}
		return `{"contents": {"kind": "markdown", "value": "` + "```go\\nfunc Greet(name string) string\\n```" + `\n\nGreet says hello.\n\nMore about it.\n\n[greet.Greet on pkg.go.dev](https://pkg.go.dev)"}}`, nil
	}}
	res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "hover", "file_path": "greet/greet.go", "line": 4, "symbol": "Greet"})
	wantOutput(t, res, "Greet (from fakels):\n```go\nfunc Greet(name string) string\n```\nGreet says hello.")

	// An answer's caveat follows it.
	f.caveat = "fakels has reported work in progress (Indexing) with no word of it for 1m0s: its answer may miss what that work has not reached."
	res = run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "hover", "file_path": "greet/greet.go", "line": 4, "symbol": "Greet"})
	wantOutput(t, res, "Greet (from fakels):\n```go\nfunc Greet(name string) string\n```\nGreet says hello.\n\n"+f.caveat)
}

func TestNavigateCodeOutlinesADocument(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(codeintel.Request) (string, error) {
		return `[{"name": "T", "kind": 23, "range": {"start": {"line": 2, "character": 0}, "end": {"line": 9, "character": 1}}, "selectionRange": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 6}},
		  "children": [{"name": "M", "detail": "func() int", "kind": 6, "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 1}}, "selectionRange": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 1}}}]}]`, nil
	}}
	res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "document_symbols", "file_path": "greet/greet.go"})
	wantOutput(t, res, "greet/greet.go: 2 symbols (from fakels)\n  3: struct T\n    5: method M func() int")
	if f.asked[0].Text != greetGo {
		t.Errorf("the server was not given the file's text")
	}
}

func TestNavigateCodeListsCallers(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
		main := codeintel.URIOf(tw.abs("main.go"))
		return `[{"from": {"name": "main", "kind": 12, "uri": "` + main + `", "range": {"start": {"line": 2, "character": 0}, "end": {"line": 6, "character": 1}}, "selectionRange": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 9}}},
		  "fromRanges": [{"start": {"line": 4, "character": 15}, "end": {"line": 4, "character": 20}}, {"start": {"line": 5, "character": 15}, "end": {"line": 5, "character": 20}}]}]`, nil
	}}
	res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "incoming_calls", "file_path": "greet/greet.go", "line": 4, "symbol": "Greet"})
	wantOutput(t, res, "Greet is called from 1 place (from fakels):\nmain.go\n  5: \tprintln(greet.Greet(greet.Greet(\"x\")))   (in function main)\n  6: \tprintln(greet.Greet(\"y\"))   (in function main)")
}

// No server for the file ends the call at once, saying what to install;
// the server's own error is told word for word.
func TestNavigateCodeTellsTheServersErrors(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
		switch req.Op {
		case codeintel.Hover:
			return "", fmt.Errorf("no identifier found")
		case codeintel.Definition:
			return "[]", nil
		}
		return "", &codeintel.NoServerError{Language: "Go", Install: "gopls"}
	}}
	tool := tw.tool(NavigateCodeName, Options{CodeIntel: f})
	res := run(t, tool, map[string]any{"operation": "references", "file_path": "main.go", "line": 6, "symbol": "Greet"})
	wantError(t, res, "No language server can answer for main.go: no language server is available for Go files; install gopls.")
	res = run(t, tool, map[string]any{"operation": "hover", "file_path": "main.go", "line": 6, "symbol": "Greet"})
	wantError(t, res, "The language server answered with an error: no identifier found")
}

func TestNavigateCodeRefusesIgnoredFiles(t *testing.T) {
	tw := codeWorkspace(t)
	f := &fakeServer{answer: func(codeintel.Request) (string, error) { return "[]", nil }}
	res := run(t, tw.tool(NavigateCodeName, Options{CodeIntel: f}), map[string]any{"operation": "references", "file_path": "secret/s.go", "line": 2, "symbol": "Greet"})
	wantErrorHas(t, res, "is ignored by configured ignore patterns")
	if len(f.asked) != 0 {
		t.Errorf("the server was asked about an ignored file")
	}
}

func TestCodeIntelToolsNeedAServer(t *testing.T) {
	tw := codeWorkspace(t)
	reg := NewRegistry(Builtin(Options{Workspace: tw.ws})...)
	for _, name := range []string{NavigateCodeName, RenameSymbolName} {
		if _, ok := reg.Get(name); ok {
			t.Errorf("%s declared with no language server", name)
		}
	}
	tool := tw.tool(RenameSymbolName, Options{CodeIntel: &fakeServer{}})
	if a := AnnotationsOf(tool); !a.EditsFiles || a.ReadOnly {
		t.Errorf("rename_symbol's annotations %+v: it edits files", a)
	}
	if a := AnnotationsOf(tw.tool(NavigateCodeName, Options{CodeIntel: &fakeServer{}})); !a.ReadOnly {
		t.Errorf("navigate_code's annotations %+v: it only reads", a)
	}
}

// A rename becomes one proposal of every file's change, made from the
// workspace's text (the editor's buffer when open); the result counts
// the edits of each file that changed.
func TestRenameSymbolProposesEveryFile(t *testing.T) {
	tw := codeWorkspace(t)
	tw.open("main.go", mainGo+"// unsaved\n")
	edit := func(path string, line, char int) string {
		return fmt.Sprintf(`{"range": {"start": {"line": %d, "character": %d}, "end": {"line": %d, "character": %d}}, "newText": "Hello"}`, line, char, line, char+5)
	}
	f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
		if req.NewName != "Hello" {
			return "", fmt.Errorf("new name %q", req.NewName)
		}
		return `{"documentChanges": [
		  {"textDocument": {"uri": "` + codeintel.URIOf(tw.abs("greet/greet.go")) + `", "version": null}, "edits": [` + edit("", 2, 3) + `,` + edit("", 3, 5) + `]},
		  {"textDocument": {"uri": "` + codeintel.URIOf(tw.abs("main.go")) + `", "version": 1}, "edits": [` + edit("", 4, 15) + `,` + edit("", 4, 27) + `,` + edit("", 5, 15) + `]}]}`, nil
	}}
	tool := tw.tool(RenameSymbolName, Options{CodeIntel: f})
	call := build(t, tool, map[string]any{"file_path": "greet/greet.go", "line": 4, "symbol": "Greet", "new_name": "Hello"})
	if c := call.Confirmation(); c == nil || c.Kind != "edit" {
		t.Fatalf("confirmation %+v, want an edit's", c)
	}
	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil || res.Files == nil {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	p := res.Files
	if len(p.Changes) != 2 || p.Title != "Rename Greet to Hello" {
		t.Fatalf("proposal %q of %d changes", p.Title, len(p.Changes))
	}
	if want := strings.ReplaceAll(greetGo, "Greet", "Hello"); p.Changes[0].After != want {
		t.Errorf("greet.go after:\n%s\nwant:\n%s", p.Changes[0].After, want)
	}
	if want := strings.Replace(strings.ReplaceAll(mainGo, "greet.Greet", "greet.Hello"), "// «Greet» twice: Greet(Greet(", "// «Greet» twice: Greet(Greet(", 1) + "// unsaved\n"; p.Changes[1].After != want {
		t.Errorf("main.go after (from the editor's buffer):\n%s\nwant:\n%s", p.Changes[1].After, want)
	}
	settled, err := p.Settle([]dialog.Decision{{Outcome: dialog.Applied}, {Outcome: dialog.Applied}})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, settled, "Rename Greet to Hello (proposed by fakels): 5 edits in 2 files changed: greet/greet.go (2 edits), main.go (3 edits).")

	settled, _ = p.Settle([]dialog.Decision{{Outcome: dialog.Applied}, {Outcome: dialog.Stale, Reason: "the file changed on disk"}})
	wantContains(t, settled.Output, "NOT changed, so the rename is incomplete and the code may not build: main.go (the file changed on disk).")

	// An answer's caveat is told after what became of the rename.
	f.caveat = "fakels has reported work in progress (Indexing) with no word of it for 1m0s: its answer may miss what that work has not reached."
	res, err = build(t, tool, map[string]any{"file_path": "greet/greet.go", "line": 4, "symbol": "Greet", "new_name": "Hello"}).Execute(context.Background(), CallInfo{})
	if err != nil || res.Files == nil {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	settled, _ = res.Files.Settle([]dialog.Decision{{Outcome: dialog.Applied}, {Outcome: dialog.Applied}})
	wantOutput(t, settled, "Rename Greet to Hello (proposed by fakels): 5 edits in 2 files changed: greet/greet.go (2 edits), main.go (3 edits).\n"+f.caveat)
	f.caveat = ""
	settled, _ = p.Settle([]dialog.Decision{{Outcome: dialog.Declined}, {Outcome: dialog.Declined}})
	wantError(t, settled, "Rename Greet to Hello was not applied: the user declined it. No file was modified.")
	if settled.Status != dialog.StatusRejected {
		t.Errorf("status %q, want rejected", settled.Status)
	}
}

// A rename that reaches a file the model may not read, or a server's
// refusal, changes nothing and says why.
func TestRenameSymbolRefusesWhatItCannotChange(t *testing.T) {
	tw := codeWorkspace(t)
	reach := codeintel.URIOf(tw.abs("secret/s.go"))
	f := &fakeServer{answer: func(req codeintel.Request) (string, error) {
		if req.Position.Line == 2 {
			return "", fmt.Errorf("cannot rename: not an identifier")
		}
		return `{"changes": {"` + reach + `": [{"range": {"start": {"line": 1, "character": 15}, "end": {"line": 1, "character": 20}}, "newText": "Hello"}]}}`, nil
	}}
	tool := tw.tool(RenameSymbolName, Options{CodeIntel: f})
	res := run(t, tool, map[string]any{"file_path": "greet/greet.go", "line": 4, "symbol": "Greet", "new_name": "Hello"})
	wantErrorHas(t, res, "The rename would change secret/s.go, which cannot be changed")
	wantErrorHas(t, res, "nothing was changed")
	res = run(t, tool, map[string]any{"file_path": "greet/greet.go", "line": 3, "symbol": "Greet", "new_name": "Hello"})
	wantError(t, res, "The language server answered with an error: cannot rename: not an identifier")
}

// A hostile server's rename reaching out of the workspace, through a
// link to an ignored file, or into .git changes nothing, and the files
// it named alongside stay as they were: the rename is refused whole.
func TestRenameSymbolRefusesAHostileServersReach(t *testing.T) {
	tw := codeWorkspace(t)
	tw.write(".git/config", "[core]\n\tGreet = x\n")
	platformtest.Symlink(t, "secret/s.go", tw.abs("alias.go"))
	outside := filepath.Join(t.TempDir(), "victim.go")
	if err := os.WriteFile(outside, []byte("package victim\nvar Greet = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := `[{"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 9}}, "newText": "Hello"}]`
	for name, target := range map[string]string{
		"outside the workspace":     outside,
		"a link to an ignored file": tw.abs("alias.go"),
		".git":                      tw.abs(".git/config"),
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeServer{answer: func(codeintel.Request) (string, error) {
				return `{"documentChanges": [{"textDocument": {"uri": "` + codeintel.URIOf(tw.abs("main.go")) + `"}, "edits": ` + edit + `},
				  {"textDocument": {"uri": "` + codeintel.URIOf(target) + `"}, "edits": ` + edit + `}]}`, nil
			}}
			res := run(t, tw.tool(RenameSymbolName, Options{CodeIntel: f}), map[string]any{"file_path": "greet/greet.go", "line": 4, "symbol": "Greet", "new_name": "Hello"})
			wantErrorHas(t, res, "nothing was changed")
			if res.Files != nil {
				t.Fatalf("a rename reaching %s was proposed", name)
			}
		})
	}
}
