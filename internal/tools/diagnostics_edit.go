package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// After an edit lands, the model is told the errors the editor shows in
// the edited file that it did not show before (EditWatch), so that it
// fixes what it broke in the same turn. The editor's diagnostics come
// from its language servers, which answer a change some time after it:
// the check asks the editor again and again until its answer settles,
// within a short bound, and tells nothing where the editor cannot answer.

const (
	// settleInterval is the time between two asks.
	settleInterval = 200 * time.Millisecond
	// settleQuiet is how long an answer still the same as before the edit
	// must last to count as settled: the editor's servers may not have
	// answered the change yet. An answer that changed is settled once
	// asked twice alike.
	settleQuiet = 800 * time.Millisecond
	// settleBound is the longest the check waits after an edit landed.
	settleBound = 1500 * time.Millisecond
	// maxEditErrors bounds the new errors an edit's result lists.
	maxEditErrors = 10
)

// settling is how an EditWatch waits for the editor's diagnostics to
// settle (settleInterval, settleQuiet, settleBound).
type settling struct {
	interval, quiet, bound time.Duration
}

// EditWatch holds the diagnostics the editor showed in a file before an
// edit of it landed. A nil *EditWatch tells nothing.
type EditWatch struct {
	reader dialog.DiagnosticsReader
	path   string
	before []dialog.EditorDiagnostic
	timing settling
}

// WatchEdit asks the editor, through reader, for the diagnostics of the
// file at path before an edit of it lands; nil when reader is nil, the
// editor did not answer within settleBound, or the file is one the model
// may not read (ignored, in .git: read_file's rules, as get_diagnostics
// holds to them): its errors quote its text.
func WatchEdit(ctx context.Context, reader dialog.DiagnosticsReader, ws *workspace.Workspace, path string) *EditWatch {
	if ws != nil && hidden(ctx, ws, path, false) {
		return nil
	}
	return watchEdit(ctx, reader, path, settling{interval: settleInterval, quiet: settleQuiet, bound: settleBound})
}

func watchEdit(ctx context.Context, reader dialog.DiagnosticsReader, path string, timing settling) *EditWatch {
	if reader == nil {
		return nil
	}
	w := &EditWatch{reader: reader, path: path, timing: timing}
	ask, cancel := context.WithTimeout(ctx, timing.bound)
	defer cancel()
	before, _, err := w.read(ask)
	if err != nil {
		return nil
	}
	w.before = before
	return w
}

// read is what the editor shows in the watched file now; pending when
// the editor says a language server has not yet checked its text.
func (w *EditWatch) read(ctx context.Context) (all []dialog.EditorDiagnostic, pending bool, err error) {
	files, err := w.reader.Diagnostics(ctx, []string{w.path})
	if err != nil {
		return nil, false, err
	}
	// Only the watched file's answers count: an editor may answer for
	// other files it has open too (another project's, a file under the
	// home), which the model may not read. The editor may spell the
	// watched path otherwise (a link, a letter's case): the same file is
	// the same.
	for _, f := range files {
		if sameFile(f.Path, w.path) {
			all = append(all, f.Diagnostics...)
			pending = pending || f.Pending
		}
	}
	return all, pending, nil
}

// Introduced waits for the editor's diagnostics of the file to settle
// after the edit landed (within settleBound) and returns what the model
// is told of the errors among them that the editor did not show before:
// their lines, at most maxEditErrors, and how many warnings are new; ""
// when nothing is new, or the editor did not answer. name is the file as
// the model is shown it.
func (w *EditWatch) Introduced(ctx context.Context, name string) string {
	if w == nil {
		return ""
	}
	after, ok := w.settle(ctx)
	if !ok {
		return ""
	}
	errs := newSince(w.before, after, "error")
	warnings := len(newSince(w.before, after, "warning"))
	who, more := "The editor", "get_diagnostics lists them"
	if s, ok := w.reader.(SourcedDiagnostics); ok {
		who, more = s.DiagnosticsSource(), "run the build or the linter to list them"
	}
	return introducedNote(who, more, name, errs, warnings)
}

// SourcedDiagnostics is a dialog.DiagnosticsReader that is not the user's
// editor (the language servers gemini-ls started): what the model is
// told of an edit's errors names it, and no get_diagnostics lists more.
type SourcedDiagnostics interface {
	dialog.DiagnosticsReader
	// DiagnosticsSource names what reports them: "The language server".
	DiagnosticsSource() string
}

// settle asks the editor until its answer settles: asked twice alike,
// and either changed since before the edit (its servers answered it) or
// unchanged for settling.quiet; at settling.bound, the last answer is
// taken as it is. ok is false when no answer came. An answer the editor
// says is pending is no answer: a language server published it for a
// text before the edit's (one it saw halfway through, as when a rename's
// files land one by one), and its errors may already be gone.
func (w *EditWatch) settle(ctx context.Context) (last []dialog.EditorDiagnostic, ok bool) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, w.timing.bound)
	defer cancel()
	tick := time.NewTicker(w.timing.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return last, ok
		case <-tick.C:
		}
		now, pending, err := w.read(ctx)
		if err != nil {
			return last, ok
		}
		if pending {
			last, ok = nil, false
			continue
		}
		alike := ok && sameProblems(now, last)
		changed := !sameProblems(now, w.before)
		last, ok = now, true
		if alike && (changed || time.Since(start) >= w.timing.quiet) {
			return last, ok
		}
	}
}

// problemKey is what identifies a diagnostic across an edit: not its
// position, which the edit may have moved.
type problemKey struct{ severity, message, source, code string }

func keyOf(d dialog.EditorDiagnostic) problemKey {
	return problemKey{d.Severity, d.Message, d.Source, d.Code}
}

// sameProblems reports whether a and b hold the same problems, wherever.
func sameProblems(a, b []dialog.EditorDiagnostic) bool {
	if len(a) != len(b) {
		return false
	}
	return len(newSince(a, b, "")) == 0
}

// newSince are the diagnostics of after (of severity, or of any when
// severity is ""), by position, that before does not account for: each
// diagnostic of before accounts for one of after with the same message,
// source, code and severity, wherever it is.
func newSince(before, after []dialog.EditorDiagnostic, severity string) []dialog.EditorDiagnostic {
	seen := map[problemKey]int{}
	for _, d := range before {
		seen[keyOf(d)]++
	}
	var out []dialog.EditorDiagnostic
	for _, d := range slices.SortedStableFunc(slices.Values(after), byPosition) {
		if severity != "" && d.Severity != severity {
			continue
		}
		if k := keyOf(d); seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// introducedNote tells the model the new errors of file name, and the
// count of its new warnings; "" when there are none.
func introducedNote(who, more, name string, errs []dialog.EditorDiagnostic, warnings int) string {
	if len(errs) == 0 && warnings == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n")
	warned := ""
	if warnings > 0 {
		warned = fmt.Sprintf("%d new %s", warnings, plural(warnings, "warning", "warnings"))
	}
	if len(errs) == 0 {
		fmt.Fprintf(&b, "%s now shows %s in %s that it did not show before this change (%s).", who, warned, name, more)
		return b.String()
	}
	fmt.Fprintf(&b, "%s now shows %d new %s in %s that it did not show before this change:", who, len(errs), plural(len(errs), "error", "errors"), name)
	for _, d := range errs[:min(len(errs), maxEditErrors)] {
		b.WriteString("\n" + DiagnosticLine(d))
	}
	if n := len(errs) - maxEditErrors; n > 0 {
		fmt.Fprintf(&b, "\n(%d more new %s not shown; %s.)", n, plural(n, "error", "errors"), more)
	}
	if warned != "" {
		b.WriteString("\nIt also shows " + warned + ".")
	}
	return b.String()
}

// sameFile reports whether a and b name one file: the same clean path,
// or, both existing, the same file on disk.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}
