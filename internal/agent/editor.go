package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Gemini CLI's caps on the IDE context (packages/core/src/ide/constants.ts).
const (
	// maxOpenFiles bounds the files listed, the active one included
	// (IDE_MAX_OPEN_FILES).
	maxOpenFiles = 10
	// maxSelectedText bounds the selected text sent, in characters
	// (IDE_MAX_SELECTED_TEXT_LENGTH).
	maxSelectedText = 16384
)

// The sentences Gemini CLI puts before its IDE context (core/client.ts
// getIdeContextParts), so a model tuned on them reads ours the same way.
const (
	editorContextIntro = "Here is the user's editor context as a JSON object. This is for your information only."
	editorChangesIntro = "Here is a summary of changes in the user's editor context, in JSON format. This is for your information only."
)

// editorState is what a session last told the model of the editor, so
// later prompts tell only what changed, as Gemini CLI does.
type editorState struct {
	// told is what the model knows; nil until the full context is sent.
	told *editorView
}

// reset makes the next prompt send the full context again, as Gemini CLI
// does when the history is replaced (compression, a new chat).
func (st *editorState) reset() { st.told = nil }

// next is the text that tells the model of cur: the full context the first
// time, then only what changed since the last text; "" when there is
// nothing to say. A nil cur (no editor) forgets what was told, so the
// editor's next context is sent in full, as Gemini CLI does when the IDE
// disconnects.
func (st *editorState) next(cur *dialog.EditorContext) string {
	if cur == nil {
		st.told = nil
		return ""
	}
	view := viewOf(cur)
	var text string
	if st.told == nil {
		text = view.full()
	} else {
		text = st.told.changesTo(view)
		view.believed = st.told.stillBelieved(view)
	}
	st.told = view
	return text
}

// editorView is an editor context as the model is told it: capped as
// Gemini CLI caps it.
type editorView struct {
	active *fileJSON // nil when no file is active
	others []string  // the other open files listed, at most maxOpenFiles with the active one
	// unlisted counts the other open files the cap left out.
	unlisted int
	// open is every open file, the active one included, listed or not.
	open map[string]bool
	// believed are the files the model was told are open and not told
	// closed since: the listed ones, and earlier ones that are still open
	// but fell out of the list.
	believed []string
}

func viewOf(e *dialog.EditorContext) *editorView {
	v := &editorView{open: make(map[string]bool)}
	limit := maxOpenFiles
	if f := e.ActiveFile; f != nil {
		v.active = fileJSONOf(f)
		v.open[f.Path] = true
		v.believed = append(v.believed, f.Path)
		limit--
	}
	for _, p := range e.OpenFiles {
		if v.open[p] {
			continue // the active file, or a duplicate
		}
		v.open[p] = true
		if len(v.others) == limit {
			v.unlisted++
			continue
		}
		v.others = append(v.others, p)
		v.believed = append(v.believed, p)
	}
	return v
}

// full is Gemini CLI's full context: the active file and the other open
// files as JSON; "" when there are neither.
func (v *editorView) full() string {
	if v.active == nil && len(v.others) == 0 {
		return ""
	}
	return fencedJSON(editorContextIntro, struct {
		ActiveFile     *fileJSON `json:"activeFile,omitempty"`
		OtherOpenFiles []string  `json:"otherOpenFiles,omitempty"`
		// Not in Gemini CLI, which drops the rest silently: the model is
		// told that more files are open than are listed.
		Unlisted int `json:"otherOpenFilesNotListed,omitempty"`
	}{v.active, v.others, v.unlisted})
}

// changesTo is Gemini CLI's delta from what v told to cur; "" when nothing
// changed.
func (v *editorView) changesTo(cur *editorView) string {
	var c editorChanges
	known := make(map[string]bool, len(v.believed))
	for _, p := range v.believed {
		known[p] = true
	}
	for _, p := range cur.believed {
		if !known[p] {
			c.FilesOpened = append(c.FilesOpened, p)
		}
	}
	for _, p := range v.believed {
		if !cur.open[p] {
			c.FilesClosed = append(c.FilesClosed, p)
		}
	}
	last, now := v.active, cur.active
	switch {
	case now != nil && (last == nil || last.Path != now.Path):
		c.ActiveFileChanged = now
	case now != nil:
		if now.Cursor != nil && (last.Cursor == nil || *last.Cursor != *now.Cursor) {
			c.CursorMoved = &cursorMoved{Path: now.Path, Cursor: *now.Cursor}
		}
		if now.SelectedText != last.SelectedText {
			c.SelectionChanged = &selectionChanged{Path: now.Path, SelectedText: now.SelectedText}
		}
		if !slices.Equal(now.Diagnostics, last.Diagnostics) {
			c.DiagnosticsChanged = &diagnosticsChanged{Path: now.Path, Diagnostics: now.Diagnostics}
			if c.DiagnosticsChanged.Diagnostics == nil {
				c.DiagnosticsChanged.Diagnostics = []diagnosticJSON{} // all fixed
			}
		}
	case last != nil:
		c.ActiveFileChanged = noActiveFile{PreviousPath: last.Path}
	}
	if c.empty() {
		return ""
	}
	return fencedJSON(editorChangesIntro, struct {
		Changes editorChanges `json:"changes"`
	}{c})
}

// stillBelieved is what the model believes open once told of cur: cur's
// listed files, then the files it knew of that are still open though the
// cap no longer lists them (they were not closed, so it is not told so).
func (v *editorView) stillBelieved(cur *editorView) []string {
	out := slices.Clone(cur.believed)
	for _, p := range v.believed {
		if cur.open[p] && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// editorChanges is Gemini CLI's delta, in its key order; DiagnosticsChanged
// is ours.
type editorChanges struct {
	FilesOpened        []string            `json:"filesOpened,omitempty"`
	FilesClosed        []string            `json:"filesClosed,omitempty"`
	ActiveFileChanged  any                 `json:"activeFileChanged,omitempty"`
	CursorMoved        *cursorMoved        `json:"cursorMoved,omitempty"`
	SelectionChanged   *selectionChanged   `json:"selectionChanged,omitempty"`
	DiagnosticsChanged *diagnosticsChanged `json:"diagnosticsChanged,omitempty"`
}

func (c editorChanges) empty() bool {
	return len(c.FilesOpened) == 0 && len(c.FilesClosed) == 0 && c.ActiveFileChanged == nil &&
		c.CursorMoved == nil && c.SelectionChanged == nil && c.DiagnosticsChanged == nil
}

// noActiveFile is activeFileChanged when no file is active any more.
type noActiveFile struct {
	Path         *string `json:"path"` // always null
	PreviousPath string  `json:"previousPath"`
}

type cursorMoved struct {
	Path   string     `json:"path"`
	Cursor cursorJSON `json:"cursor"`
}

type selectionChanged struct {
	Path         string `json:"path"`
	SelectedText string `json:"selectedText"` // "" when the selection went away
}

type diagnosticsChanged struct {
	Path        string           `json:"path"`
	Diagnostics []diagnosticJSON `json:"diagnostics"`
}

// fileJSON is Gemini CLI's activeFile, plus the diagnostics the editor
// shows in it.
type fileJSON struct {
	Path         string           `json:"path"`
	Cursor       *cursorJSON      `json:"cursor,omitempty"`
	SelectedText string           `json:"selectedText,omitempty"`
	Diagnostics  []diagnosticJSON `json:"diagnostics,omitempty"`
}

type cursorJSON struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type diagnosticJSON struct {
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Severity  string `json:"severity,omitempty"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty"`
	Code      string `json:"code,omitempty"`
}

func fileJSONOf(f *dialog.ActiveFile) *fileJSON {
	out := &fileJSON{Path: f.Path, SelectedText: cappedSelection(f)}
	if f.Cursor != nil {
		out.Cursor = &cursorJSON{Line: f.Cursor.Line, Character: f.Cursor.Character}
	}
	for _, d := range f.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, diagnosticJSON{
			Line: d.Start.Line, Character: d.Start.Character,
			Severity: d.Severity, Message: d.Message, Source: d.Source, Code: d.Code,
		})
	}
	return out
}

// cappedSelection is the selected text cut at maxSelectedText characters,
// as Gemini CLI cuts it, with what was cut said in the text itself.
func cappedSelection(f *dialog.ActiveFile) string {
	text := f.SelectedText
	total := utf8.RuneCountInString(text)
	if total <= maxSelectedText {
		return text
	}
	cut := 0
	for range maxSelectedText {
		_, size := utf8.DecodeRuneInString(text[cut:])
		cut += size
	}
	kept := text[:cut]
	note := fmt.Sprintf("only the first %d of %d selected characters are shown", maxSelectedText, total)
	if f.Selection != nil {
		note += fmt.Sprintf("; the selection goes on from line %d to line %d",
			f.Selection.Start.Line+strings.Count(kept, "\n"), f.Selection.End.Line)
	}
	return kept + "... [TRUNCATED: " + note + "]"
}

// fencedJSON is intro and v as indented JSON in a fence, as Gemini CLI
// writes its IDE context.
func fencedJSON(intro string, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as JSON.stringify: <, > and & stay readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		// Only strings, ints and slices of them: this cannot fail.
		panic(fmt.Sprintf("encoding the editor context: %v", err))
	}
	return intro + "\n```json\n" + strings.TrimSuffix(b.String(), "\n") + "\n```"
}
