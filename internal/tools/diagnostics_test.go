package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// shownDiagnostics is an editor's diagnostics by file, as a
// dialog.DiagnosticsReader: those of the files asked about, or of all.
type shownDiagnostics struct {
	mu    sync.Mutex
	files map[string][]dialog.EditorDiagnostic
	asked [][]string
	err   error
}

func (e *shownDiagnostics) Diagnostics(_ context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, paths)
	if e.err != nil {
		return nil, e.err
	}
	if len(paths) == 0 {
		for p := range e.files {
			paths = append(paths, p)
		}
		slices.Sort(paths)
	}
	var out []dialog.FileDiagnostics
	for _, p := range paths {
		out = append(out, dialog.FileDiagnostics{Path: p, Diagnostics: e.files[p]})
	}
	return out, nil
}

func TestDiagnosticLine(t *testing.T) {
	for _, c := range []struct {
		d    dialog.EditorDiagnostic
		want string
	}{
		{dialog.EditorDiagnostic{Line: 3, Column: 5, Severity: "error", Message: "undefined: x", Source: "compiler", Code: "UndeclaredName"}, "L3:5 error [compiler UndeclaredName] undefined: x"},
		{dialog.EditorDiagnostic{Line: 1, Column: 1, Severity: "warning", Message: "unused", Source: "staticcheck"}, "L1:1 warning [staticcheck] unused"},
		{dialog.EditorDiagnostic{Line: 1, Column: 1, Severity: "hint", Message: "m", Code: "E1"}, "L1:1 hint [E1] m"},
		{dialog.EditorDiagnostic{Line: 9, Column: 2, Message: "no severity"}, "L9:2 diagnostic no severity"},
		{dialog.EditorDiagnostic{Line: 2, Column: 1, Severity: "error", Message: "Type 'A' is not assignable to type 'B'.\n  Property 'x' is missing.\n\n"}, "L2:1 error Type 'A' is not assignable to type 'B'. Property 'x' is missing."},
		{dialog.EditorDiagnostic{Line: 1, Column: 1, Severity: "error", Message: strings.Repeat("é", maxDiagnosticMessage+5)}, "L1:1 error " + strings.Repeat("é", maxDiagnosticMessage) + "…"},
	} {
		if got := DiagnosticLine(c.d); got != c.want {
			t.Errorf("DiagnosticLine(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// get_diagnostics tells the files asked about, by their paths in the
// workspace, in the order asked; it asks the editor of the resolved
// paths, and of every file when none is named.
func TestGetDiagnosticsOfTheFilesAsked(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "", "sub/b.go": "", "c.go": ""})
	editor := &shownDiagnostics{files: map[string][]dialog.EditorDiagnostic{
		tw.abs("a.go"): {
			{Line: 7, Column: 2, Severity: "warning", Message: "later", Source: "lint"},
			{Line: 3, Column: 5, Severity: "error", Message: "undefined: x", Source: "compiler"},
		},
		tw.abs("sub/b.go"): {{Line: 1, Column: 1, Severity: "error", Message: "b"}},
	}}
	tool := tw.tool(GetDiagnosticsName, Options{Diagnostics: editor})
	wantOutput(t, run(t, tool, map[string]any{"file_paths": []any{"sub/b.go", tw.abs("a.go"), "c.go", "a.go"}}),
		"sub/b.go:\nL1:1 error b\n\na.go:\nL3:5 error [compiler] undefined: x\nL7:2 warning [lint] later\n\nc.go: no diagnostics.\n\n"+
			"(An editor has diagnostics only for the files its language servers and linters check, usually those open in it.)")
	wantOutput(t, run(t, tool, map[string]any{}),
		"a.go:\nL3:5 error [compiler] undefined: x\nL7:2 warning [lint] later\n\nsub/b.go:\nL1:1 error b")
	if want := [][]string{{tw.abs("sub/b.go"), tw.abs("a.go"), tw.abs("c.go")}, nil}; !slices.EqualFunc(editor.asked, want, slices.Equal) {
		t.Errorf("the editor was asked of %q, want %q", editor.asked, want)
	}
	editor.files = nil
	wantOutput(t, run(t, tool, map[string]any{}), "The editor shows no diagnostics.")

	if msg := buildError(t, tool, map[string]any{"file_paths": []any{"/elsewhere/x.go"}}); !strings.Contains(msg, "Path must be within one of the workspace directories") {
		t.Errorf("a path outside the workspace: %q", msg)
	}
	editor.err = errors.New("no buffer")
	if _, err := build(t, tool, map[string]any{}).Execute(context.Background(), CallInfo{}); err == nil || err.Error() != "asking the editor for its diagnostics: no buffer" {
		t.Errorf("an editor that fails: %v", err)
	}
}

// Past maxListedDiagnostics, the least severe are left out first, and
// counted by severity.
func TestGetDiagnosticsKeepsTheMostSevere(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "", "b.go": ""})
	var hints []dialog.EditorDiagnostic
	for i := range 120 {
		hints = append(hints, dialog.EditorDiagnostic{Line: i + 1, Column: 1, Severity: "hint", Message: "h"})
	}
	editor := &shownDiagnostics{files: map[string][]dialog.EditorDiagnostic{
		tw.abs("a.go"): hints,
		tw.abs("b.go"): {
			{Line: 50, Column: 1, Severity: "error", Message: "e2"},
			{Line: 9, Column: 1, Severity: "warning", Message: "w"},
			{Line: 2, Column: 1, Severity: "error", Message: "e1"},
		},
	}}
	out := run(t, tw.tool(GetDiagnosticsName, Options{Diagnostics: editor}), map[string]any{}).Output
	if n := strings.Count(out, "\nL"); n != maxListedDiagnostics {
		t.Errorf("%d diagnostics listed, want %d:\n%s", n, maxListedDiagnostics, out)
	}
	for _, want := range []string{
		"\nL97:1 hint h\n(23 more not shown)\n",
		"b.go:\nL2:1 error e1\nL9:1 warning w\nL50:1 error e2\n",
		"(Only the 100 most severe diagnostics are shown; not shown: 23 hints.)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// answers is an editor whose diagnostics of one file change from ask to
// ask: its i-th answer is answers[i], the last repeated.
type answers struct {
	mu    sync.Mutex
	each  [][]dialog.EditorDiagnostic
	asked int
	fail  bool
}

func (a *answers) Diagnostics(_ context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail {
		return nil, errors.New("the editor went away")
	}
	d := a.each[min(a.asked, len(a.each)-1)]
	a.asked++
	return []dialog.FileDiagnostics{{Path: paths[0], Diagnostics: d}}, nil
}

func (a *answers) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asked
}

func undefined(line int, name string) dialog.EditorDiagnostic {
	return dialog.EditorDiagnostic{Line: line, Column: 9, Severity: "error", Message: "undefined: " + name, Source: "compiler", Code: "UndeclaredName"}
}

// An edit's check tells the errors new since before the edit, once the
// editor's answer settled; the errors there before, wherever the edit
// moved them, are not new.
func TestEditWatchTellsTheNewErrors(t *testing.T) {
	ctx := context.Background()
	before := []dialog.EditorDiagnostic{undefined(3, "x"), undefined(8, "x"), {Line: 1, Column: 1, Severity: "warning", Message: "w"}}
	after := []dialog.EditorDiagnostic{
		undefined(4, "x"), undefined(9, "x"), // moved down by the edit
		undefined(12, "x"), // a third of the same
		undefined(2, "y"),
		{Line: 1, Column: 1, Severity: "warning", Message: "w"},
		{Line: 5, Column: 1, Severity: "warning", Message: "w2"},
		{Line: 6, Column: 1, Severity: "hint", Message: "h"},
	}
	// The editor's server answers the edit late: the first answers after
	// it are still those before it.
	editor := &answers{each: [][]dialog.EditorDiagnostic{before, before, before, before, after}}
	w := watchEdit(ctx, editor, "/w/a.go", settling{interval: time.Millisecond, quiet: time.Minute, bound: time.Minute})
	got := w.Introduced(ctx, "a.go")
	want := "\n\nThe editor now shows 2 new errors in a.go that it did not show before this change:\n" +
		"L2:9 error [compiler UndeclaredName] undefined: y\n" +
		"L12:9 error [compiler UndeclaredName] undefined: x\n" +
		"It also shows 1 new warning."
	if got != want {
		t.Errorf("Introduced = %q, want %q", got, want)
	}
	if n := editor.count(); n != 6 {
		t.Errorf("asked %d times, want 6: once before, then until two answers after the edit agreed", n)
	}
}

// otherFileEditor answers, after the edit, with an error in the file
// asked about and a secret-bearing one in a file outside the workspace.
type otherFileEditor struct{ asked int }

func (e *otherFileEditor) Diagnostics(_ context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	e.asked++
	if e.asked == 1 { // before the edit
		return []dialog.FileDiagnostics{{Path: paths[0]}}, nil
	}
	return []dialog.FileDiagnostics{
		{Path: "/home/u/other/secret.go", Diagnostics: []dialog.EditorDiagnostic{undefined(1, "TOKEN_abc123")}},
		{Path: paths[0], Diagnostics: []dialog.EditorDiagnostic{undefined(2, "y")}},
	}, nil
}

// An edit's check tells only the edited file's errors: what the editor
// answers of other files never reaches the model (issue 55).
func TestEditWatchTellsOnlyTheEditedFile(t *testing.T) {
	ctx := context.Background()
	editor := &otherFileEditor{}
	timing := settling{interval: time.Millisecond, quiet: time.Millisecond, bound: time.Minute}
	got := watchEdit(ctx, editor, "/w/a.go", timing).Introduced(ctx, "a.go")
	if !strings.Contains(got, "undefined: y") {
		t.Errorf("the edited file's new error is not told: %q", got)
	}
	if strings.Contains(got, "TOKEN_abc123") || strings.Contains(got, "2 new errors") {
		t.Errorf("another file's diagnostics reached the model: %q", got)
	}
}

// An answer still the same as before the edit counts as settled only
// once it has lasted settling.quiet; an answer that keeps changing is
// taken as it is at settling.bound.
func TestEditWatchWaitsWithinBounds(t *testing.T) {
	ctx := context.Background()
	same := &answers{each: [][]dialog.EditorDiagnostic{nil}}
	timing := settling{interval: time.Millisecond, quiet: 50 * time.Millisecond, bound: time.Minute}
	if got := watchEdit(ctx, same, "/w/a.go", timing).Introduced(ctx, "a.go"); got != "" {
		t.Errorf("nothing new: %q", got)
	}
	if n := same.count(); n < 3 {
		t.Errorf("asked %d times: an unchanged answer was taken before it lasted", n)
	}

	var changing [][]dialog.EditorDiagnostic
	for i := range 10000 {
		changing = append(changing, []dialog.EditorDiagnostic{undefined(1, fmt.Sprint(i))})
	}
	editor := &answers{each: changing}
	timing = settling{interval: time.Millisecond, quiet: time.Millisecond, bound: 30 * time.Millisecond}
	got := watchEdit(ctx, editor, "/w/a.go", timing).Introduced(ctx, "a.go")
	if !strings.Contains(got, "1 new error") {
		t.Errorf("at the bound, the last answer's error is new: %q", got)
	}
}

// Many new errors are cut at maxEditErrors and counted; new warnings
// alone are counted; nothing is told where the editor cannot answer.
func TestEditWatchBounds(t *testing.T) {
	ctx := context.Background()
	timing := settling{interval: time.Millisecond, quiet: time.Minute, bound: time.Minute}
	var many []dialog.EditorDiagnostic
	for i := range maxEditErrors + 3 {
		many = append(many, undefined(i+1, fmt.Sprint("v", i)))
	}
	got := watchEdit(ctx, &answers{each: [][]dialog.EditorDiagnostic{nil, many}}, "/w/a.go", timing).Introduced(ctx, "a.go")
	if n := strings.Count(got, "\nL"); n != maxEditErrors || !strings.HasSuffix(got, "\n(3 more new errors not shown; get_diagnostics lists them.)") {
		t.Errorf("%d errors listed:\n%s", n, got)
	}

	warned := []dialog.EditorDiagnostic{{Line: 2, Column: 1, Severity: "warning", Message: "w"}, {Line: 3, Column: 1, Severity: "warning", Message: "v"}}
	got = watchEdit(ctx, &answers{each: [][]dialog.EditorDiagnostic{nil, warned}}, "/w/a.go", timing).Introduced(ctx, "a.go")
	if want := "\n\nThe editor now shows 2 new warnings in a.go that it did not show before this change (get_diagnostics lists them)."; got != want {
		t.Errorf("warnings alone: %q, want %q", got, want)
	}

	if w := WatchEdit(ctx, nil, nil, "/w/a.go"); w != nil || w.Introduced(ctx, "a.go") != "" {
		t.Errorf("no reader: %+v", w)
	}
	if w := watchEdit(ctx, &answers{fail: true}, "/w/a.go", timing); w != nil {
		t.Errorf("an editor that did not answer before the edit: %+v", w)
	}
	failing := &answers{each: [][]dialog.EditorDiagnostic{nil, many}}
	w := watchEdit(ctx, failing, "/w/a.go", timing)
	failing.mu.Lock()
	failing.fail = true
	failing.mu.Unlock()
	if got := w.Introduced(ctx, "a.go"); got != "" {
		t.Errorf("an editor that stopped answering: %q", got)
	}
}

// answersEverything is an editor that answers any question with the
// diagnostics of every file it has: the ones asked about and the rest.
type answersEverything map[string][]dialog.EditorDiagnostic

func (e answersEverything) Diagnostics(context.Context, []string) ([]dialog.FileDiagnostics, error) {
	var out []dialog.FileDiagnostics
	for _, p := range slices.Sorted(maps.Keys(e)) {
		out = append(out, dialog.FileDiagnostics{Path: p, Diagnostics: e[p]})
	}
	return out, nil
}

// Whatever the editor answers, asked of every file or of one in the
// workspace, the model is told only of the files read_file would read:
// not of one outside the roots, nor of one .geminiignore or .gitignore
// keeps, nor inside .git; how many were left out, never which.
func TestGetDiagnosticsOnlyOfReadableFiles(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "", ".geminiignore": "secret.go\n", "secret.go": "", ".gitignore": "gen/\n", "gen/g.go": "", ".git/x": ""})
	outside := filepath.Join(t.TempDir(), "elsewhere.go")
	editor := answersEverything{
		tw.abs("a.go"):      {{Line: 1, Column: 1, Severity: "error", Message: "in a"}},
		tw.abs("secret.go"): {{Line: 1, Column: 1, Severity: "error", Message: "in secret"}},
		tw.abs("gen/g.go"):  {{Line: 1, Column: 1, Severity: "error", Message: "in gen"}},
		tw.abs(".git/x"):    {{Line: 1, Column: 1, Severity: "error", Message: "in git"}},
		outside:             {{Line: 1, Column: 1, Severity: "error", Message: "in elsewhere"}},
	}
	tool := tw.tool(GetDiagnosticsName, Options{Diagnostics: editor})
	left := "\n\n(The diagnostics of 4 more files were left out: outside the workspace or ignored, so not yours to read.)"
	wantOutput(t, run(t, tool, map[string]any{}), "a.go:\nL1:1 error in a"+left)
	wantOutput(t, run(t, tool, map[string]any{"file_paths": []any{"a.go"}}), "a.go:\nL1:1 error in a"+left)
}

// pendingThen is an editor whose language server has not yet checked the
// edited text for its first n answers after the one before the edit: it
// shows stale until then, and says so; then fresh.
type pendingThen struct {
	mu           sync.Mutex
	n, asked     int
	stale, fresh []dialog.EditorDiagnostic
}

func (e *pendingThen) Diagnostics(_ context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked++
	switch {
	case e.asked == 1:
		return []dialog.FileDiagnostics{{Path: paths[0]}}, nil
	case e.asked <= 1+e.n:
		return []dialog.FileDiagnostics{{Path: paths[0], Diagnostics: e.stale, Pending: true}}, nil
	}
	return []dialog.FileDiagnostics{{Path: paths[0], Diagnostics: e.fresh}}, nil
}

// An answer the editor says is pending is not taken, however often it
// repeats: the model is told the errors of the last text, or nothing
// when the bound comes first.
func TestEditWatchTakesNoPendingAnswer(t *testing.T) {
	ctx := context.Background()
	timing := settling{interval: time.Millisecond, quiet: time.Minute, bound: time.Minute}
	editor := &pendingThen{n: 5, stale: []dialog.EditorDiagnostic{undefined(2, "x")}, fresh: []dialog.EditorDiagnostic{undefined(2, "y")}}
	got := watchEdit(ctx, editor, "/w/a.go", timing).Introduced(ctx, "a.go")
	if !strings.Contains(got, "undefined: y") || strings.Contains(got, "undefined: x") {
		t.Errorf("Introduced = %q, want the error of the last text alone", got)
	}

	timing.bound = 30 * time.Millisecond
	always := &pendingThen{n: 1 << 30, stale: []dialog.EditorDiagnostic{undefined(2, "x")}}
	if got := watchEdit(ctx, always, "/w/a.go", timing).Introduced(ctx, "a.go"); got != "" {
		t.Errorf("still pending at the bound: %q, want nothing told", got)
	}
}

// get_diagnostics says which files' answers the editor says are pending.
func TestGetDiagnosticsSaysWhatIsPending(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": ""})
	editor := &pendingThen{n: 1 << 30, stale: []dialog.EditorDiagnostic{undefined(2, "x")}}
	editor.asked = 1
	tool := tw.tool(GetDiagnosticsName, Options{Diagnostics: editor})
	wantOutput(t, run(t, tool, map[string]any{"file_paths": []any{"a.go"}}),
		"a.go:\nL2:9 error [compiler UndeclaredName] undefined: x\n\n"+
			"(A language server has not yet checked the latest text of a.go: its diagnostics there may be of an older text and may change.)")
}

// An edit of a file the model may not read (ignored, in .git) is not
// followed by the errors the editor shows in it: they quote its text.
// The model's edits of the others are.
func TestEditWatchTellsNothingOfAFileTheModelMayNotRead(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "", ".geminiignore": "secret.go\n", "secret.go": "", ".git/config": ""})
	ctx := context.Background()
	editor := answersEverything{}
	for _, name := range []string{"a.go", "secret.go", ".git/config"} {
		editor[tw.abs(name)] = []dialog.EditorDiagnostic{{Line: 1, Column: 1, Severity: "error", Message: "the value is s3cr3t in " + name}}
	}
	for name, told := range map[string]bool{"a.go": true, "secret.go": false, ".git/config": false} {
		w := WatchEdit(ctx, &firstEmpty{answersEverything: editor}, tw.ws, tw.abs(name))
		if got := w.Introduced(ctx, name); strings.Contains(got, "s3cr3t") != told {
			t.Errorf("%s: told %q, want its errors told: %v", name, got, told)
		}
	}
}

// firstEmpty answers nothing before the edit (its first answer), then as
// its answersEverything does.
type firstEmpty struct {
	answersEverything
	asked int
}

func (e *firstEmpty) Diagnostics(ctx context.Context, paths []string) ([]dialog.FileDiagnostics, error) {
	e.asked++
	if e.asked == 1 {
		return []dialog.FileDiagnostics{{Path: paths[0]}}, nil
	}
	return e.answersEverything.Diagnostics(ctx, paths)
}
