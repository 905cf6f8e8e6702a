package agent

import (
	"fmt"
	"strings"
)

// Input is one prompt from the user: the text they typed, and what their
// editor shows. Front ends hand the agent this and never compose
// model-facing text themselves.
type Input struct {
	Text string
	// Editor is what the user is looking at; nil when the front end has no
	// editor (headless) or the user sent none.
	Editor *EditorContext
}

// EditorContext is the user's editor as a front end sees it.
type EditorContext struct {
	// ActiveFile is the file the user is working in; nil when none.
	ActiveFile *ActiveFile
	// OpenFiles are the other files open in the editor, as absolute paths.
	OpenFiles []string
}

// ActiveFile is the file the user is working in.
type ActiveFile struct {
	Path string // absolute
	// Cursor is where the caret is, 1-based; nil when unknown.
	Cursor *Position
	// Selection is the selected range, 1-based, and SelectedText its text
	// as the editor holds it (unsaved changes included); empty when
	// nothing is selected.
	Selection    *Range
	SelectedText string
	Diagnostics  []Diagnostic
}

// Position is a 1-based line and column.
type Position struct{ Line, Character int }

// Range is a span between two positions.
type Range struct{ Start, End Position }

// Diagnostic is a problem the editor shows in the active file.
type Diagnostic struct {
	Start    Position
	Severity string // error, warning, information, hint; "" when unknown
	Message  string
	Source   string // the tool that reported it, e.g. "gopls"
	Code     string
}

func (d Diagnostic) String() string {
	sev := d.Severity
	if sev == "" {
		sev = "problem"
	}
	var src string
	switch {
	case d.Source != "" && d.Code != "":
		src = fmt.Sprintf(" (%s %s)", d.Source, d.Code)
	case d.Source != "":
		src = " (" + d.Source + ")"
	case d.Code != "":
		src = " (" + d.Code + ")"
	}
	return fmt.Sprintf("line %d, column %d: %s: %s%s", d.Start.Line, d.Start.Character, sev, d.Message, src)
}

// editorState is what a session last told the model of the editor.
type editorState struct{}

// next is the text that tells the model of cur; "" when there is nothing
// to say.
func (st *editorState) next(cur *EditorContext) string {
	return cur.render()
}

// render is the editor context as the model reads it; "" when there is
// nothing to say.
func (e *EditorContext) render() string {
	if e == nil || e.ActiveFile == nil {
		return ""
	}
	f := e.ActiveFile
	var b strings.Builder
	fmt.Fprintf(&b, "The user is working in the file %s.\n", f.Path)
	switch {
	case f.Selection != nil && f.SelectedText != "":
		fmt.Fprintf(&b, "The user selected lines %d-%d:\n```\n%s\n```\n", f.Selection.Start.Line, f.Selection.End.Line, f.SelectedText)
	case f.Cursor != nil:
		fmt.Fprintf(&b, "The cursor is at line %d, column %d.\n", f.Cursor.Line, f.Cursor.Character)
	}
	if len(f.Diagnostics) > 0 {
		b.WriteString("The editor shows these diagnostics in that file:\n")
		for _, d := range f.Diagnostics {
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}
	return b.String()
}
