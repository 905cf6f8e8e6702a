package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// get_diagnostics is gemini-ls's own tool (Gemini CLI 0.61 has none like
// it; Claude Code's getDiagnostics is its model): the diagnostics the
// user's editor shows, as its language servers and linters report them.
// Only a front end whose editor can answer gives the tools a
// dialog.DiagnosticsReader (the LSP, with a client that declares
// experimental.gemini.diagnostics), and the tool is declared only then.
//
// The editor may answer for any file it has open: another project's, a
// scratch file under the user's home. The model is told only of the
// files it may read, as read_file decides (inside the workspace, not
// ignored), and how many were left out, never which.

const (
	// maxListedDiagnostics bounds what get_diagnostics lists; the least
	// severe are left out first, and counted.
	maxListedDiagnostics = 100
	// maxDiagnosticMessage bounds one message, in runes.
	maxDiagnosticMessage = 400
	// diagnosticsTimeout bounds get_diagnostics' wait for the editor.
	diagnosticsTimeout = 10 * time.Second
)

// diagnosticsTools is get_diagnostics where an editor can answer it.
func diagnosticsTools(ws *workspace.Workspace, reader dialog.DiagnosticsReader) []Tool {
	if reader == nil {
		return nil
	}
	return []Tool{getDiagnostics(ws, reader)}
}

type getDiagnosticsParams struct {
	FilePaths []string `json:"file_paths,omitempty" jsonschema:"Optional: the files to get diagnostics for, absolute or relative to the workspace root. Omit to get those of every file the editor has diagnostics for."`
}

// getDiagnostics is get_diagnostics, asking reader.
func getDiagnostics(ws *workspace.Workspace, reader dialog.DiagnosticsReader) *Defined[getDiagnosticsParams] {
	return Define(Spec{
		Name: GetDiagnosticsName,
		Description: "Gets the diagnostics (errors, warnings, hints) the user's editor shows for files, as its language servers and linters report them: " +
			"one line per diagnostic, `L<line>:<column> <severity> [<source> <code>] <message>`, lines 1-based as read_file numbers them. " +
			"Editors usually check only the files open in them. Use it to see whether code compiles and passes the linters without running a build.",
		Annotations: Annotations{Kind: dialog.KindRead, ReadOnly: true},
	}, func(p getDiagnosticsParams) (Call, error) {
		c := &getDiagnosticsCall{ws: ws, reader: reader}
		for _, path := range p.FilePaths {
			abs, err := resolvePath(ws, "file_paths", path)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(c.paths, abs) {
				c.paths = append(c.paths, abs)
			}
		}
		return c, nil
	})
}

type getDiagnosticsCall struct {
	ws     *workspace.Workspace
	reader dialog.DiagnosticsReader
	paths  []string // resolved; none: every file
}

func (c *getDiagnosticsCall) Title() string {
	if len(c.paths) == 0 {
		return "Diagnostics of every file"
	}
	names := make([]string, len(c.paths))
	for i, p := range c.paths {
		names[i] = c.ws.Display(p)
	}
	return "Diagnostics of " + strings.Join(names, ", ")
}

// Confirmation: none; it only reads what the editor shows.
func (*getDiagnosticsCall) Confirmation() *Confirmation { return nil }

func (c *getDiagnosticsCall) Execute(ctx context.Context, _ CallInfo) (Result, error) {
	ask, cancel := context.WithTimeout(ctx, diagnosticsTimeout)
	defer cancel()
	files, err := c.reader.Diagnostics(ask, c.paths)
	switch {
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return Result{}, fmt.Errorf("the editor did not tell its diagnostics within %s", diagnosticsTimeout)
	case err != nil:
		return Result{}, fmt.Errorf("asking the editor for its diagnostics: %w", err)
	}
	files, left := readableDiagnostics(ctx, c.ws, files)
	out := listDiagnostics(c.ws, c.requested(files))
	if left > 0 {
		out += fmt.Sprintf("\n\n(The diagnostics of %d more %s were left out: outside the workspace or ignored, so not yours to read.)", left, plural(left, "file", "files"))
	}
	return Result{Output: out, Display: dialog.Fence("", out)}, nil
}

// readableDiagnostics keeps the files the model may read, as read_file
// decides: inside the workspace and not ignored (hidden), each by its
// resolved path. left is how many files with diagnostics it left out.
func readableDiagnostics(ctx context.Context, ws *workspace.Workspace, files []dialog.FileDiagnostics) (kept []dialog.FileDiagnostics, left int) {
	for _, f := range files {
		path, err := ws.Resolve(f.Path)
		if err != nil || hidden(ctx, ws, path, false) {
			if len(f.Diagnostics) > 0 {
				left++
			}
			continue
		}
		f.Path = path
		kept = append(kept, f)
	}
	return kept, left
}

// requested is files in the order the call named them, each named file
// there (with none when the editor told none), then what else the
// editor told; every file the editor told when the call named none.
func (c *getDiagnosticsCall) requested(files []dialog.FileDiagnostics) []dialog.FileDiagnostics {
	if len(c.paths) == 0 {
		return slices.DeleteFunc(slices.Clone(files), func(f dialog.FileDiagnostics) bool { return len(f.Diagnostics) == 0 })
	}
	out := make([]dialog.FileDiagnostics, len(c.paths))
	for i, p := range c.paths {
		out[i].Path = p
	}
	for _, f := range files {
		if i := slices.Index(c.paths, f.Path); i >= 0 {
			out[i].Diagnostics = append(out[i].Diagnostics, f.Diagnostics...)
			out[i].Pending = out[i].Pending || f.Pending
		} else if len(f.Diagnostics) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// listDiagnostics is files as get_diagnostics tells them: each file by
// its path relative to the workspace, then one line per diagnostic, by
// line; at most maxListedDiagnostics of them, the most severe, and how
// many of each severity were left out.
func listDiagnostics(ws *workspace.Workspace, files []dialog.FileDiagnostics) string {
	if len(files) == 0 {
		return "The editor shows no diagnostics."
	}
	kept, cut := mostSevere(files, maxListedDiagnostics)
	var b strings.Builder
	none := false
	var pending []string
	for i, f := range files {
		if i > 0 {
			b.WriteString("\n")
		}
		name := ws.Display(f.Path)
		if f.Pending {
			pending = append(pending, name)
		}
		if len(f.Diagnostics) == 0 {
			none = true
			fmt.Fprintf(&b, "%s: no diagnostics.\n", name)
			continue
		}
		fmt.Fprintf(&b, "%s:\n", name)
		for _, d := range kept[i] {
			b.WriteString(DiagnosticLine(d) + "\n")
		}
		if n := len(f.Diagnostics) - len(kept[i]); n > 0 {
			fmt.Fprintf(&b, "(%d more not shown)\n", n)
		}
	}
	if cut != "" {
		fmt.Fprintf(&b, "\n(Only the %d most severe diagnostics are shown; not shown: %s.)\n", maxListedDiagnostics, cut)
	}
	if none {
		b.WriteString("\n(An editor has diagnostics only for the files its language servers and linters check, usually those open in it.)\n")
	}
	if len(pending) > 0 {
		fmt.Fprintf(&b, "\n(A language server has not yet checked the latest text of %s: its diagnostics there may be of an older text and may change.)\n", strings.Join(pending, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mostSevere keeps at most limit of files' diagnostics, the most severe
// first: for each file, those kept, by position; and the others counted
// by severity ("3 warnings, 40 hints"), "" when none was left out.
func mostSevere(files []dialog.FileDiagnostics, limit int) ([][]dialog.EditorDiagnostic, string) {
	type at struct{ file, index int }
	var all []at
	for i, f := range files {
		for j := range f.Diagnostics {
			all = append(all, at{i, j})
		}
	}
	diag := func(a at) dialog.EditorDiagnostic { return files[a.file].Diagnostics[a.index] }
	slices.SortStableFunc(all, func(a, b at) int { return cmp.Compare(severityRank(diag(a).Severity), severityRank(diag(b).Severity)) })
	kept := make([][]dialog.EditorDiagnostic, len(files))
	for _, a := range all[:min(limit, len(all))] {
		kept[a.file] = append(kept[a.file], diag(a))
	}
	for _, k := range kept {
		slices.SortStableFunc(k, byPosition)
	}
	var cut []string
	left := map[string]int{}
	for _, a := range all[min(limit, len(all)):] {
		left[diag(a).Severity]++
	}
	for _, s := range []string{"error", "warning", "information", "hint", ""} {
		if n := left[s]; n > 0 {
			cut = append(cut, countOf(n, s))
		}
	}
	return kept, strings.Join(cut, ", ")
}

func byPosition(a, b dialog.EditorDiagnostic) int {
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
}

// severityRank orders severities, the most severe first, those the
// editor did not name last.
func severityRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warning":
		return 1
	case "information":
		return 2
	case "hint":
		return 3
	}
	return 4
}

// countOf is n diagnostics of severity s in words: "1 error", "3 hints".
func countOf(n int, s string) string {
	switch s {
	case "information":
		return fmt.Sprintf("%d information %s", n, plural(n, "diagnostic", "diagnostics"))
	case "":
		return fmt.Sprintf("%d %s of no stated severity", n, plural(n, "diagnostic", "diagnostics"))
	}
	return fmt.Sprintf("%d %s", n, plural(n, s, s+"s"))
}

// DiagnosticLine is d as the model reads it:
// `L<line>:<column> <severity> [<source> <code>] <message>`, on one line.
func DiagnosticLine(d dialog.EditorDiagnostic) string {
	severity := cmp.Or(d.Severity, "diagnostic")
	var b strings.Builder
	fmt.Fprintf(&b, "L%d:%d %s ", d.Line, d.Column, severity)
	if where := strings.TrimSpace(d.Source + " " + d.Code); where != "" {
		b.WriteString("[" + where + "] ")
	}
	b.WriteString(oneLine(d.Message, maxDiagnosticMessage))
	return b.String()
}

// oneLine is s on one line, its line breaks and the indentation after
// them made one space, cut after limit runes with an ellipsis.
func oneLine(s string, limit int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	s = strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), " ")
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
