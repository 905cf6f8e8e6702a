package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

func mainGo() *dialog.ActiveFile {
	return &dialog.ActiveFile{
		Path:   "/proj/main.go",
		Cursor: &dialog.Position{Line: 3, Character: 5},
	}
}

func TestEditorContextFull(t *testing.T) {
	f := mainGo()
	f.Selection = &dialog.Range{Start: dialog.Position{Line: 3, Character: 5}, End: dialog.Position{Line: 4, Character: 2}}
	f.SelectedText = "a < b &&\n\tc"
	f.Diagnostics = []dialog.Diagnostic{{Start: dialog.Position{Line: 3, Character: 6}, Severity: "error", Message: "undefined: b", Source: "compiler", Code: "UndeclaredName"}}
	var st editorState
	got := st.next(&dialog.EditorContext{ActiveFile: f, OpenFiles: []string{"/proj/a.go", "/proj/main.go", "/proj/b.go"}})
	want := "Here is the user's editor context as a JSON object. This is for your information only.\n" +
		"```json\n" +
		`{
  "activeFile": {
    "path": "/proj/main.go",
    "cursor": {
      "line": 3,
      "character": 5
    },
    "selectedText": "a < b &&\n\tc",
    "diagnostics": [
      {
        "line": 3,
        "character": 6,
        "severity": "error",
        "message": "undefined: b",
        "source": "compiler",
        "code": "UndeclaredName"
      }
    ]
  },
  "otherOpenFiles": [
    "/proj/a.go",
    "/proj/b.go"
  ]
}` + "\n```"
	if got != want {
		t.Errorf("full context:\n%s\nwant:\n%s", got, want)
	}
}

func TestEditorContextFullWithoutActiveFile(t *testing.T) {
	var st editorState
	got := st.next(&dialog.EditorContext{OpenFiles: []string{"/proj/a.go"}})
	if intro, body := split(t, got); intro != editorContextIntro || body != `{"otherOpenFiles":["/proj/a.go"]}` {
		t.Errorf("full context = %q", got)
	}
}

func TestEditorContextNothingToSay(t *testing.T) {
	var st editorState
	if got := st.next(nil); got != "" {
		t.Errorf("no editor: %q", got)
	}
	if got := st.next(&dialog.EditorContext{}); got != "" {
		t.Errorf("an editor with no file open: %q", got)
	}
	ctx := &dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: []string{"/proj/a.go"}}
	st.next(ctx)
	same := &dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: []string{"/proj/a.go"}}
	if got := st.next(same); got != "" {
		t.Errorf("unchanged context told again: %q", got)
	}
}

func TestEditorContextDeltas(t *testing.T) {
	withSelection := func(text string) *dialog.ActiveFile {
		f := mainGo()
		f.SelectedText = text
		return f
	}
	withDiagnostics := func(ds ...dialog.Diagnostic) *dialog.ActiveFile {
		f := mainGo()
		f.Diagnostics = ds
		return f
	}
	unused := dialog.Diagnostic{Start: dialog.Position{Line: 7, Character: 2}, Severity: "warning", Message: "x declared and not used"}
	tests := []struct {
		name        string
		first, then *dialog.EditorContext
		want        string // the changes, as compact JSON
	}{{
		name:  "files opened and closed",
		first: &dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: []string{"/proj/a.go", "/proj/b.go"}},
		then:  &dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: []string{"/proj/b.go", "/proj/c.go"}},
		want:  `{"filesOpened":["/proj/c.go"],"filesClosed":["/proj/a.go"]}`,
	}, {
		name:  "active file changed",
		first: &dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: []string{"/proj/a.go"}},
		then: &dialog.EditorContext{
			ActiveFile: &dialog.ActiveFile{Path: "/proj/a.go", Cursor: &dialog.Position{Line: 1, Character: 1}, SelectedText: "package a"},
			OpenFiles:  []string{"/proj/main.go"},
		},
		want: `{"activeFileChanged":{"path":"/proj/a.go","cursor":{"line":1,"character":1},"selectedText":"package a"}}`,
	}, {
		name:  "no file active any more",
		first: &dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: []string{"/proj/a.go"}},
		then:  &dialog.EditorContext{OpenFiles: []string{"/proj/a.go", "/proj/main.go"}},
		want:  `{"activeFileChanged":{"path":null,"previousPath":"/proj/main.go"}}`,
	}, {
		name:  "cursor moved",
		first: &dialog.EditorContext{ActiveFile: mainGo()},
		then:  &dialog.EditorContext{ActiveFile: &dialog.ActiveFile{Path: "/proj/main.go", Cursor: &dialog.Position{Line: 3, Character: 9}}},
		want:  `{"cursorMoved":{"path":"/proj/main.go","cursor":{"line":3,"character":9}}}`,
	}, {
		name:  "selection changed",
		first: &dialog.EditorContext{ActiveFile: withSelection("old")},
		then:  &dialog.EditorContext{ActiveFile: withSelection("new text")},
		want:  `{"selectionChanged":{"path":"/proj/main.go","selectedText":"new text"}}`,
	}, {
		name:  "selection cleared",
		first: &dialog.EditorContext{ActiveFile: withSelection("old")},
		then:  &dialog.EditorContext{ActiveFile: mainGo()},
		want:  `{"selectionChanged":{"path":"/proj/main.go","selectedText":""}}`,
	}, {
		name:  "diagnostics changed",
		first: &dialog.EditorContext{ActiveFile: mainGo()},
		then:  &dialog.EditorContext{ActiveFile: withDiagnostics(unused)},
		want:  `{"diagnosticsChanged":{"path":"/proj/main.go","diagnostics":[{"line":7,"character":2,"severity":"warning","message":"x declared and not used"}]}}`,
	}, {
		name:  "diagnostics fixed",
		first: &dialog.EditorContext{ActiveFile: withDiagnostics(unused)},
		then:  &dialog.EditorContext{ActiveFile: mainGo()},
		want:  `{"diagnosticsChanged":{"path":"/proj/main.go","diagnostics":[]}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st editorState
			if first := st.next(tt.first); !strings.HasPrefix(first, editorContextIntro) {
				t.Fatalf("first context = %q, want the full one", first)
			}
			intro, body := split(t, st.next(tt.then))
			if intro != editorChangesIntro {
				t.Errorf("intro = %q", intro)
			}
			if want := `{"changes":` + tt.want + `}`; body != want {
				t.Errorf("changes = %s\nwant      %s", body, want)
			}
			if again := st.next(tt.then); again != "" {
				t.Errorf("the same context a third time says %q", again)
			}
		})
	}
}

func TestEditorContextResetSendsFullContext(t *testing.T) {
	var st editorState
	ctx := &dialog.EditorContext{ActiveFile: mainGo()}
	st.next(ctx)
	st.reset()
	if got := st.next(ctx); !strings.HasPrefix(got, editorContextIntro) {
		t.Errorf("after reset: %q, want the full context", got)
	}
	st.next(nil) // the editor went away
	if got := st.next(ctx); !strings.HasPrefix(got, editorContextIntro) {
		t.Errorf("after a prompt without an editor: %q, want the full context", got)
	}
}

func TestEditorContextSelectionCapped(t *testing.T) {
	// 16384 characters is not cut; one more is, at a character boundary,
	// with what was cut said in the text.
	line := strings.Repeat("é", 99) + "\n" // 100 characters
	exact := strings.Repeat(line, maxSelectedText/100) + strings.Repeat("x", maxSelectedText%100)
	f := &dialog.ActiveFile{Path: "/proj/big.txt", Selection: &dialog.Range{Start: dialog.Position{Line: 10, Character: 1}, End: dialog.Position{Line: 400, Character: 3}}}
	f.SelectedText = exact
	if got := fileJSONOf(f).SelectedText; got != exact {
		t.Errorf("a selection of exactly %d characters was changed (%d bytes left of %d)", maxSelectedText, len(got), len(exact))
	}
	f.SelectedText = exact + "yz" + strings.Repeat(line, 5)
	want := exact + "... [TRUNCATED: only the first 16384 of 16886 selected characters are shown; the selection goes on from line 173 to line 400]"
	var st editorState
	_, body := split(t, st.next(&dialog.EditorContext{ActiveFile: f}))
	var got struct{ ActiveFile fileJSON }
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.ActiveFile.SelectedText != want {
		t.Errorf("capped selection ends %q, want it to end %q", tail(got.ActiveFile.SelectedText), tail(want))
	}
}

func TestEditorContextOpenFilesCapped(t *testing.T) {
	var open []string
	for i := range 12 {
		open = append(open, fmt.Sprintf("/proj/f%02d.go", i))
	}
	var st editorState
	_, body := split(t, st.next(&dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: open}))
	var full struct {
		OtherOpenFiles []string
		Unlisted       int `json:"otherOpenFilesNotListed"`
	}
	if err := json.Unmarshal([]byte(body), &full); err != nil {
		t.Fatal(err)
	}
	if len(full.OtherOpenFiles) != maxOpenFiles-1 || full.OtherOpenFiles[8] != "/proj/f08.go" || full.Unlisted != 3 {
		t.Fatalf("listed %q and %d not listed, want f00…f08 (10 with the active file) and 3", full.OtherOpenFiles, full.Unlisted)
	}
	// Closing f00 lists f09, which the model had not heard of; f10 and
	// f11 stay unlisted. Closing one the model never heard of says nothing.
	_, body = split(t, st.next(&dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: open[1:11]}))
	if want := `{"changes":{"filesOpened":["/proj/f09.go"],"filesClosed":["/proj/f00.go"]}}`; body != want {
		t.Errorf("changes = %s\nwant      %s", body, want)
	}
	// A file the model was told of that the cap no longer lists (a new
	// active file takes a place) is still open: it is not said closed.
	moved := &dialog.EditorContext{ActiveFile: &dialog.ActiveFile{Path: "/proj/new.go"}, OpenFiles: append([]string{"/proj/main.go"}, open[1:11]...)}
	_, body = split(t, st.next(moved))
	if want := `{"changes":{"filesOpened":["/proj/new.go"],"activeFileChanged":{"path":"/proj/new.go"}}}`; body != want {
		t.Errorf("changes = %s\nwant      %s", body, want)
	}
	// Listed again, f09 is not news: the model still believes it open.
	_, body = split(t, st.next(&dialog.EditorContext{ActiveFile: mainGo(), OpenFiles: open[1:11]}))
	if want := `{"changes":{"filesClosed":["/proj/new.go"],"activeFileChanged":{"path":"/proj/main.go","cursor":{"line":3,"character":5}}}}`; body != want {
		t.Errorf("changes = %s\nwant      %s", body, want)
	}
}

// split returns a context text's intro and its JSON, compacted.
func split(t *testing.T, text string) (intro, body string) {
	t.Helper()
	intro, fenced, ok := strings.Cut(text, "\n```json\n")
	if !ok || !strings.HasSuffix(fenced, "\n```") {
		t.Fatalf("not an intro and a JSON fence: %q", text)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(strings.TrimSuffix(fenced, "\n```"))); err != nil {
		t.Fatalf("the fence holds no JSON: %v\n%s", err, text)
	}
	return intro, b.String()
}

func tail(s string) string {
	if len(s) > 160 {
		return "…" + s[len(s)-160:]
	}
	return s
}
