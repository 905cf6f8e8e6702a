package codeintel

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

type answering struct {
	name string
	err  error
	n    int
}

func (a *answering) Ask(context.Context, Request) (Answer, error) {
	a.n++
	return Answer{Source: a.name}, a.err
}

// Chain asks the next provider only when one has no server for the
// file; a server's own error is the answer.
func TestChainFallsThroughOnlyWithoutAServer(t *testing.T) {
	editor := &answering{name: "editor", err: &NoServerError{Language: "go"}}
	self := &answering{name: "gopls"}
	a, err := Chain(editor, nil, self).Ask(context.Background(), Request{})
	if err != nil || a.Source != "gopls" || editor.n != 1 || self.n != 1 {
		t.Fatalf("Chain = %+v, %v; asked %d, %d", a, err, editor.n, self.n)
	}
	refusal := errors.New("cannot rename a built-in")
	editor.err = refusal
	if _, err := Chain(editor, self).Ask(context.Background(), Request{}); !errors.Is(err, refusal) || self.n != 1 {
		t.Errorf("a server's refusal went on to the next provider: %v, asked %d", err, self.n)
	}
	self.err = &NoServerError{Language: "Go", Install: "gopls"}
	editor.err = &NoServerError{Language: "go"}
	if _, err := Chain(editor, self).Ask(context.Background(), Request{}); err == nil || err.Error() != "no language server is available for Go files; install gopls" {
		t.Errorf("with no server anywhere: %v", err)
	}
	if Chain(nil, nil) != nil {
		t.Error("a chain of nothing is not nil, so the tools would be declared")
	}
}

func TestRequestToEncoding(t *testing.T) {
	text := "a\nx := \"😀é\"; Greet()\n"
	r := Request{Text: text, Position: workspace.Position{Line: 1, Character: strings.Index("x := \"😀é\"; Greet()", "Greet")}}
	for enc, want := range map[workspace.Encoding]int{workspace.UTF8: 15, workspace.UTF16: 12, workspace.UTF32: 11} {
		if got := r.ToEncoding(enc); got != (workspace.Position{Line: 1, Character: want}) {
			t.Errorf("encoding %v: %+v, want character %d", enc, got, want)
		}
	}
}

func TestLocationsTakesEveryShape(t *testing.T) {
	dir := t.TempDir()
	u := URIOf(filepath.Join(dir, "a.go"))
	for name, raw := range map[string]string{
		"null":  `null`,
		"one":   `{"uri": "` + u + `", "range": {"start": {"line": 3, "character": 1}, "end": {"line": 3, "character": 4}}}`,
		"array": `[{"uri": "` + u + `", "range": {"start": {"line": 3, "character": 1}, "end": {"line": 3, "character": 4}}}]`,
		"links": `[{"targetUri": "` + u + `", "targetRange": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}, "targetSelectionRange": {"start": {"line": 3, "character": 1}, "end": {"line": 3, "character": 4}}}]`,
	} {
		locs, err := Locations(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "null" {
			if len(locs) != 0 {
				t.Errorf("null: %v", locs)
			}
			continue
		}
		if len(locs) != 1 || locs[0].Path != filepath.Join(dir, "a.go") || locs[0].Range.Start != (workspace.Position{Line: 3, Character: 1}) {
			t.Errorf("%s: %+v", name, locs)
		}
	}
	locs, _ := Locations(json.RawMessage(`[{"uri": "untitled:Untitled-1", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}]`))
	if len(locs) != 1 || locs[0].Path != "" || locs[0].URI != "untitled:Untitled-1" {
		t.Errorf("a URI of no file: %+v", locs)
	}
	if _, err := Locations(json.RawMessage(`"nonsense"`)); err == nil {
		t.Error("a string decoded as locations")
	}
}

func TestHoverText(t *testing.T) {
	for raw, want := range map[string]string{
		`null`: "",
		`{"contents": {"kind": "markdown", "value": "**x**"}}`:                       "**x**",
		`{"contents": "plain"}`:                                                      "plain",
		`{"contents": {"language": "go", "value": "func F()"}}`:                      "```go\nfunc F()\n```",
		`{"contents": [{"language": "python", "value": "def f()"}, "Says hi.", ""]}`: "```python\ndef f()\n```\n\nSays hi.",
	} {
		got, err := HoverText(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("HoverText(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

func TestSymbolsFlatAndNested(t *testing.T) {
	doc := URIOf(filepath.Join(t.TempDir(), "a.go"))
	nested := `[{"name": "T", "kind": 23, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 5, "character": 0}}, "selectionRange": {"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 6}},
	  "children": [{"name": "M", "kind": 6, "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 9}}, "selectionRange": {"start": {"line": 3, "character": 2}, "end": {"line": 3, "character": 3}}}]}]`
	syms, err := Symbols(json.RawMessage(nested), doc)
	if err != nil || len(syms) != 2 || syms[1].Name != "M" || syms[1].Depth != 1 || syms[1].Container != "T" || syms[1].Kind != "method" || syms[1].Location.URI != doc || syms[1].Location.Range.Start.Line != 3 {
		t.Errorf("nested: %+v, %v", syms, err)
	}
	flat := `[{"name": "F", "kind": 12, "containerName": "pkg", "location": {"uri": "` + doc + `", "range": {"start": {"line": 7, "character": 5}, "end": {"line": 7, "character": 6}}}},
	  {"name": "W", "kind": 99, "location": {"uri": "` + doc + `"}}]`
	syms, err = Symbols(json.RawMessage(flat), "")
	if err != nil || len(syms) != 2 || syms[0].Container != "pkg" || syms[0].Kind != "function" || syms[0].Location.Range.Start.Line != 7 || syms[1].Kind != "" {
		t.Errorf("flat: %+v, %v", syms, err)
	}
}

func TestCallsKeepTheirSites(t *testing.T) {
	doc, caller := URIOf("/p/greet.go"), URIOf("/p/main.go")
	raw := `[{"from": {"name": "main", "kind": 12, "uri": "` + caller + `", "range": {"start": {"line": 2, "character": 0}, "end": {"line": 9, "character": 1}}, "selectionRange": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 9}}},
	  "fromRanges": [{"start": {"line": 4, "character": 1}, "end": {"line": 4, "character": 6}}]}]`
	calls, err := Calls(json.RawMessage(raw), true, doc)
	if err != nil || len(calls) != 1 || calls[0].Symbol.Name != "main" || len(calls[0].Sites) != 1 || calls[0].Sites[0].URI != caller || calls[0].Sites[0].Range.Start.Line != 4 {
		t.Errorf("incoming: %+v, %v", calls, err)
	}
	raw = strings.Replace(raw, `"from"`, `"to"`, 1)
	calls, err = Calls(json.RawMessage(raw), false, doc)
	if err != nil || len(calls) != 1 || calls[0].Sites[0].URI != doc {
		t.Errorf("outgoing: the sites are in the asked file: %+v, %v", calls, err)
	}
}

func TestEdits(t *testing.T) {
	a, b := URIOf("/p/a.go"), URIOf("/p/b.go")
	edit := `{"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}, "newText": "New"}`
	got, err := Edits(json.RawMessage(`{"changes": {"` + b + `": [` + edit + `], "` + a + `": [` + edit + `,` + edit + `]}}`))
	if err != nil || len(got) != 2 || got[0].URI != a || len(got[0].Edits) != 2 || got[1].URI != b || got[1].Edits[0].NewText != "New" {
		t.Errorf("changes: %+v, %v", got, err)
	}
	got, err = Edits(json.RawMessage(`{"documentChanges": [{"textDocument": {"uri": "` + b + `", "version": 3}, "edits": [` + edit + `]}, {"textDocument": {"uri": "` + b + `", "version": 3}, "edits": [` + edit + `]}]}`))
	if err != nil || len(got) != 1 || len(got[0].Edits) != 2 {
		t.Errorf("documentChanges of one file twice: %+v, %v", got, err)
	}
	_, err = Edits(json.RawMessage(`{"documentChanges": [{"kind": "rename", "oldUri": "` + a + `", "newUri": "` + b + `"}]}`))
	if err == nil || !strings.Contains(err.Error(), "the rename would rename a file") {
		t.Errorf("a file operation: %v", err)
	}
}
