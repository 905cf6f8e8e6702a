package dialog

import "context"

// The editor's diagnostics are a port a front end implements for the
// tools: the LSP asks its client (gemini/diagnostics), and get_diagnostics
// and the check of what an edit brought read them through it. It lives
// here, below the tools, so a front end implements it without importing
// them.

// EditorDiagnostic is a problem an editor shows in a file, as the tools
// ask for it (Diagnostic is one of the active file's, in a prompt's
// editor context).
type EditorDiagnostic struct {
	// Line and Column are where it starts, 1-based: lines as read_file
	// numbers them, columns in the editor's position encoding.
	Line, Column int
	// Severity is error, warning, information or hint; "" when the
	// editor did not say.
	Severity string
	Message  string
	// Source is what reported it (gopls, eslint), Code its code there;
	// either may be "".
	Source, Code string
}

// FileDiagnostics are the diagnostics an editor shows for one file.
type FileDiagnostics struct {
	Path        string // absolute
	Diagnostics []EditorDiagnostic
	// Pending: one of the editor's language servers has not yet published
	// diagnostics of the text the editor holds now (the editor knows by the
	// document versions the servers name), so some may be of an older text.
	Pending bool
}

// DiagnosticsReader asks the user's editor for the diagnostics it shows.
type DiagnosticsReader interface {
	// Diagnostics are those of the files at paths (absolute), or, with
	// no paths, of every file the editor has diagnostics for.
	Diagnostics(ctx context.Context, paths []string) ([]FileDiagnostics, error)
}
