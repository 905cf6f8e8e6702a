package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func TestReplace(t *testing.T) {
	files := demoFiles()
	tw := newTestWorkspace(t, files)
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, ReplaceName, Options{})

	call := build(t, tool, map[string]any{"file_path": "main.go", "old_string": "\treturn \"Hello, \" + util.Title(name)", "new_string": "\treturn \"Hi, \" + util.Title(name)"})
	if call.Title() != "Edit main.go" || kindOf(tool) != dialog.KindEdit || !reflect.DeepEqual(call.Confirmation(), EditConfirmation(tw.abs("main.go"))) {
		t.Errorf("Title %q Kind %q", call.Title(), kindOf(tool))
	}
	res, err := call.Execute(t.Context(), CallInfo{})
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, res, "Successfully modified file: "+tw.abs("main.go")+" (1 replacements).")
	c := p.only(t)
	if c.Before != files["main.go"] || c.After != strings.Replace(files["main.go"], `"Hello, "`, `"Hi, "`, 1) {
		t.Errorf("change = %+v", c)
	}
	wantContains(t, res.Display, "-\treturn \"Hello, \" + util.Title(name)\n+\treturn \"Hi, \" + util.Title(name)\n")
}

func TestReplaceMany(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "x = 1\nx = 1\ny = 2\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, ReplaceName, Options{})

	wantError(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"}),
		"Failed to edit, expected 1 occurrence(s) but found 2 for old_string in file: "+tw.abs("a.txt")+". They start at lines 1, 2. No edits made. "+
			"Include more of the surrounding lines in old_string to make it unique, or set allow_multiple to true to replace them all.")
	wantError(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "y = 2", "new_string": "y = 3", "expected_replacements": 2.0}),
		"Failed to edit, expected 2 occurrence(s) but found 1 for old_string in file: "+tw.abs("a.txt")+". It starts at line 3. No edits made. "+
			"Set expected_replacements to 1 to replace just these.")
	wantError(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "q := 9", "new_string": "q := 3"}),
		"Failed to edit, 0 occurrences found for old_string in "+tw.abs("a.txt")+". No edits made. The exact text in old_string was not found. "+
			"Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify. "+
			"Also tried: the file's line endings, unescaping, ignoring indentation and surrounding whitespace, ignoring whitespace within lines, a fuzzy match. "+
			"No LLM correction was tried: no model is available for it.")
	if len(p.changes) != 0 {
		t.Fatalf("failed edits proposed %d changes", len(p.changes))
	}

	wantOutput(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "expected_replacements": 2.0}),
		"Successfully modified file: "+tw.abs("a.txt")+" (2 replacements).")
	if c := p.only(t); c.After != "x = 3\nx = 3\ny = 2\n" {
		t.Errorf("After = %q", c.After)
	}
	p.changes = nil
	wantOutput(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "allow_multiple": true}),
		"Successfully modified file: "+tw.abs("a.txt")+" (2 replacements).")
	if c := p.only(t); c.After != "x = 3\nx = 3\ny = 2\n" {
		t.Errorf("After = %q", c.After)
	}
	p.changes = nil
	wantOutput(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "y = 2", "new_string": "y = 3", "allow_multiple": true}),
		"Successfully modified file: "+tw.abs("a.txt")+" (1 replacements).")
}

func TestReplaceCRLF(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"win.txt": "one\r\ntwo\r\nthree\r\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "win.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"})
	wantOutput(t, res, "Successfully modified file: "+tw.abs("win.txt")+" (1 replacements).")
	if c := p.only(t); c.Before != "one\r\ntwo\r\nthree\r\n" || c.After != "1\r\n2\r\nthree\r\n" {
		t.Errorf("change = %q -> %q", c.Before, c.After)
	}
}

// A new_string written with CRLF takes an LF file's line endings.
func TestReplaceKeepsLFFile(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"unix.txt": "one\ntwo\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "unix.txt", "old_string": "one", "new_string": "1\r\n1.5"})
	wantOutput(t, res, "Successfully modified file: "+tw.abs("unix.txt")+" (1 replacements).")
	if c := p.only(t); c.After != "1\n1.5\ntwo\n" {
		t.Errorf("After = %q", c.After)
	}
}

func TestReplaceSeesOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "func disk() {}\n"})
	tw.open("a.go", "func buffer() {}\n")
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, ReplaceName, Options{})

	res := run(t, tool, map[string]any{"file_path": "a.go", "old_string": "func disk()", "new_string": "func x()"})
	if res.Error == "" {
		t.Error("replace matched the stale disk text")
	}
	run(t, tool, map[string]any{"file_path": "a.go", "old_string": "func buffer()", "new_string": "func x()"})
	if c := p.only(t); !c.Open || c.Before != "func buffer() {}\n" || c.After != "func x() {}\n" {
		t.Errorf("change = %+v", c)
	}
}

func TestReplaceCreate(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"exists.txt": "x\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, ReplaceName, Options{})

	wantError(t, run(t, tool, map[string]any{"file_path": "exists.txt", "old_string": "", "new_string": "y\n"}),
		"Failed to edit. Attempted to create a file that already exists.")
	wantError(t, run(t, tool, map[string]any{"file_path": "missing.txt", "old_string": "x", "new_string": "y"}),
		"File not found. Cannot apply edit. Use an empty old_string to create a new file.")
	if len(p.changes) != 0 {
		t.Fatalf("failed edits proposed %d changes", len(p.changes))
	}

	wantOutput(t, run(t, tool, map[string]any{"file_path": "sub/new.txt", "old_string": "", "new_string": "fresh\n"}),
		"Created new file: "+tw.abs("sub/new.txt")+" with provided content.")
	if c := p.only(t); c.Exists || c.Path != tw.abs("sub/new.txt") || c.After != "fresh\n" {
		t.Errorf("change = %+v", c)
	}
}

func TestReplaceValidation(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "a\n", "dir/": ""})
	tool := tw.proposing(&fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}, ReplaceName, Options{})

	wantError(t, run(t, tool, map[string]any{"file_path": "dir", "old_string": "a", "new_string": "b"}), "Path is a directory, not a file: "+tw.abs("dir"))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"old_string": "a", "new_string": "b"}, "params must have required property 'file_path'"},
		{map[string]any{"file_path": "a.txt", "new_string": "b"}, "params must have required property 'old_string'"},
		{map[string]any{"file_path": "a.txt", "old_string": "a"}, "params must have required property 'new_string'"},
		{map[string]any{"file_path": "a.txt", "old_string": 1.0, "new_string": "b"}, "params/old_string must be string"},
		{map[string]any{"file_path": "a.txt", "old_string": "a", "new_string": "b", "expected_replacements": 0.0}, "params/expected_replacements must be >= 1"},
		{map[string]any{"file_path": "a.txt", "old_string": "a", "new_string": "b", "expected_replacements": 1.5}, "params/expected_replacements must be integer"},
		{map[string]any{"file_path": "a.txt", "old_string": "a", "new_string": "a"}, "No changes to apply. The old_string and new_string are identical."},
		{map[string]any{"file_path": "a.txt", "old_string": "a\r\n", "new_string": "a\n"}, "No changes to apply. The old_string and new_string are identical."},
	} {
		if got := buildError(t, tool, tc.args); got != tc.want {
			t.Errorf("Build(%v) error = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// replaceWith is the replace tool over tw with the LLM fix asking u,
// bounded by timeout.
func replaceWith(tw *testWorkspace, p proposer, u Utility, timeout time.Duration) Tool {
	rt := newReplaceTool(Options{Workspace: tw.ws, Utility: u})
	rt.fixer.timeout = timeout
	return proposingTool{Tool: rt.define(), p: p}
}

// The LLM fix gets Gemini CLI's prompt (instruction, the failed strings,
// the error, the file with LF line endings) and a JSON response schema;
// its search must be the file's own text, and its answer is reported.
func TestReplaceLLMFixAsks(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "func a() {\r\n\tx := 30\r\n}\r\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	u := &fakeUtility{answer: &llmEdit{Search: "\tx := 30\n", Replace: "\tx := 40\n", Explanation: "The file has 30."}}
	tool := replaceWith(tw, p, u, time.Minute)

	res := run(t, tool, map[string]any{"file_path": "a.go", "old_string": "\tx := 10\n", "new_string": "\tx := 40\n", "instruction": "Raise x to 40."})
	wantOutput(t, res, "Successfully modified file: "+tw.abs("a.go")+" (1 replacements). old_string matched after an LLM correction of old_string and new_string. The correction: The file has 30.")
	if c := p.only(t); c.After != "func a() {\r\n\tx := 40\r\n}\r\n" {
		t.Errorf("After = %q", c.After)
	}
	if len(u.calls) != 1 {
		t.Fatalf("%d utility calls", len(u.calls))
	}
	call := u.calls[0]
	if call.alias != models.LLMEditFixer {
		t.Errorf("the fix was asked as %q, want 0.61's %q", call.alias, models.LLMEditFixer)
	}
	for _, want := range []string{
		"<instruction>\nRaise x to 40.\n</instruction>",
		"<search>\n\tx := 10\n\n</search>",
		"<replace>\n\tx := 40\n\n</replace>",
		"<error>\nFailed to edit, 0 occurrences found for old_string in " + tw.abs("a.go"),
		"<file_content>\nfunc a() {\n\tx := 30\n}\n\n</file_content>",
	} {
		wantContains(t, call.prompt, want)
	}
	cfg := call.config
	if cfg.ResponseMIMEType != "application/json" || cfg.SystemInstruction == nil ||
		!strings.Contains(cfg.SystemInstruction.Parts[0].Text, "debugging and correcting failed search-and-replace operations") {
		t.Errorf("config = %+v", cfg)
	}
	schema, _ := json.Marshal(cfg.ResponseJsonSchema)
	wantContains(t, string(schema), `"required":["search","replace","explanation"]`)

	// Without an instruction the fix is asked to apply the edit.
	tw.write("b.go", "y := 1\n")
	u.answer = &llmEdit{Search: "y := 1", Replace: "y := 2"}
	run(t, tool, map[string]any{"file_path": "b.go", "old_string": "y = 1", "new_string": "y := 2"})
	wantContains(t, u.calls[1].prompt, "<instruction>\nApply the requested edit.\n</instruction>")
}

// The same failed call made twice asks the model once; once the file
// changes, it asks again.
func TestReplaceLLMFixCached(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "alpha\n"})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Declined}}
	u := &fakeUtility{answer: &llmEdit{Search: "alpha", Replace: "beta"}}
	tool := replaceWith(tw, p, u, time.Minute)
	args := map[string]any{"file_path": "a.txt", "old_string": "alfa", "new_string": "beta"}

	run(t, tool, args)
	run(t, tool, args)
	if u.count() != 1 || len(p.changes) != 2 {
		t.Fatalf("%d utility calls, %d proposals; want 1 and 2", u.count(), len(p.changes))
	}
	tw.write("a.txt", "alpha\nomega\n")
	run(t, tool, args)
	if u.count() != 2 {
		t.Fatalf("%d utility calls after the file changed, want 2", u.count())
	}
}

// Every way the LLM fix can fail leaves the file untouched and says why.
func TestReplaceLLMFixFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    *fakeUtility
		want string
	}{
		{"error", &fakeUtility{err: errors.New("utility call to flash: 429 quota")}, "The LLM correction failed: utility call to flash: 429 quota."},
		{"not JSON", &fakeUtility{text: "Sure! Here is the fix"}, "The LLM correction failed: the answer is not the JSON asked for: "},
		{"timeout", &fakeUtility{block: true}, "The LLM correction failed: no answer within 10ms."},
		{"absent", &fakeUtility{answer: &llmEdit{Search: "nothing like it", Replace: "x"}}, "The LLM correction's old_string was not found in the file either."},
		{"no change", &fakeUtility{answer: &llmEdit{Search: "keep = 1", Replace: "keep = 1"}}, "The LLM correction proposed no change."},
		{"already done", &fakeUtility{answer: &llmEdit{NoChangesRequired: true, Explanation: "keep is already 1."}},
			"No changes required: an LLM correction found that the file already contains the change. No edits made. Explanation: keep is already 1. Original error: Failed to edit, 0 occurrences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWorkspace(t, map[string]string{"a.txt": "keep = 1\n"})
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
			res := run(t, replaceWith(tw, p, tc.u, 10*time.Millisecond), map[string]any{"file_path": "a.txt", "old_string": "kept = 0", "new_string": "keep = 2"})
			wantContains(t, res.Error, tc.want)
			if len(p.changes) != 0 || tw.read("a.txt") != "keep = 1\n" {
				t.Errorf("%d changes proposed", len(p.changes))
			}
		})
	}
}

// Turned off (or with no model), the LLM fix is never asked and the
// failure says why.
func TestReplaceLLMFixOff(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "keep = 1\n"})
	u := &fakeUtility{answer: &llmEdit{Search: "keep = 1", Replace: "keep = 2"}}
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	tool := tw.proposing(p, ReplaceName, Options{Utility: u, DisableLLMCorrection: true})
	res := run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "kept = 0", "new_string": "keep = 2"})
	wantContains(t, res.Error, "No LLM correction was tried: it is turned off (tools.disableLLMCorrection).")
	if u.count() != 0 || len(p.changes) != 0 {
		t.Errorf("%d utility calls, %d changes", u.count(), len(p.changes))
	}
}

// Cancelling the call while the fix is asked ends it with the
// cancellation, not a verdict on the edit.
func TestReplaceLLMFixCancelled(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "keep = 1\n"})
	u := &fakeUtility{block: true}
	call := build(t, replaceWith(tw, &fakeProposer{}, u, time.Minute), map[string]any{"file_path": "a.txt", "old_string": "kept = 0", "new_string": "keep = 2"})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for u.count() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := call.Execute(ctx, CallInfo{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute = %v, want context.Canceled", err)
	}
}

// changingUtility edits the file while the model "thinks".
type changingUtility struct {
	fakeUtility
	change func()
}

func (u *changingUtility) GenerateContent(ctx context.Context, alias string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	u.change()
	return u.fakeUtility.GenerateContent(ctx, alias, contents, config)
}

// A file that changes while the fix is asked is not edited with offsets
// into its old text, which would undo the change.
func TestReplaceFileChangedDuringFix(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "one\ntwo\n"})
	tw.open("a.txt", "one\ntwo\n")
	u := &changingUtility{fakeUtility: fakeUtility{answer: &llmEdit{Search: "two", Replace: "2"}}}
	u.change = func() {
		tw.docs.Open(workspace.Document{Path: tw.abs("a.txt"), URI: "file://" + tw.abs("a.txt"), Version: 2, Text: "zero\none\ntwo\n"})
	}
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	res := run(t, replaceWith(tw, p, u, time.Minute), map[string]any{"file_path": "a.txt", "old_string": "too", "new_string": "2"})
	wantError(t, res, "Failed to edit: "+tw.abs("a.txt")+" changed while this edit was being prepared. No edits made. Read the file again and retry.")
	if len(p.changes) != 0 {
		t.Errorf("%d changes proposed", len(p.changes))
	}
}

// A failure shows the lines of the file most like old_string.
func TestReplaceShowsNearestLines(t *testing.T) {
	file := "package a\n\nfunc f() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n\nfunc g() {}\n"
	tw := newTestWorkspace(t, map[string]string{"a.go": file})
	tool := tw.proposing(&fakeProposer{}, ReplaceName, Options{})

	// Each old_string is too far from the file for the fuzzy stage.
	res := run(t, tool, map[string]any{"file_path": "a.go", "old_string": "\tx := 1\n\ty := twenty\n\tz := 3\n", "new_string": "\ty := 5\n"})
	wantContains(t, res.Error, "\nThe closest lines in the file (lines 2-8):\n\nfunc f() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n\n")
	// Nothing alike: no lines.
	res = run(t, tool, map[string]any{"file_path": "a.go", "old_string": "SELECT * FROM users", "new_string": "x"})
	if strings.Contains(res.Error, "closest lines") {
		t.Errorf("Error = %q", res.Error)
	}
	// One similar line, when no line is equal.
	res = run(t, tool, map[string]any{"file_path": "a.go", "old_string": "func gg(x int) {}", "new_string": "x"})
	wantContains(t, res.Error, "(lines 7-9):\n}\n\nfunc g() {}\n")
}

// The parameters, declared once as Gemini CLI 0.61 declares them:
// instruction required, though a call without it (as gemini-ls's older
// declaration allowed) still runs; expected_replacements undeclared, but
// an older call's still holds.
func TestReplaceDeclaration(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	schema, err := json.Marshal(tw.tool(ReplaceName, Options{}).Declaration().ParametersJsonSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"required":["file_path","instruction","old_string","new_string"]`, `"instruction":{"description":"A clear, semantic instruction`, `"allow_multiple":{"description":"If true`} {
		wantContains(t, string(schema), want)
	}
	if strings.Contains(string(schema), "expected_replacements") {
		t.Errorf("expected_replacements is declared: %s", schema)
	}
	build(t, tw.tool(ReplaceName, Options{}), map[string]any{"file_path": "a", "old_string": "a", "new_string": "b"})
	if got := buildError(t, tw.tool(ReplaceName, Options{}), map[string]any{"file_path": "a", "old_string": "a", "new_string": "b", "expected_replacements": 2.0, "allow_multiple": false}); got != "expected_replacements above 1 needs allow_multiple: give allow_multiple true, or only allow_multiple" {
		t.Errorf("error = %q", got)
	}
	if got := buildError(t, tw.tool(ReplaceName, Options{}), map[string]any{"file_path": "a", "old_string": "a", "new_string": "b", "instruction": 3.0}); got != "params/instruction must be string" {
		t.Errorf("error = %q", got)
	}
}

// Gemini CLI's own cases for unescapeStringForGeminiBug
// (packages/core/src/utils/editCorrector.test.ts), the JavaScript
// literals written as the same Go literals.
func TestUnescapeRunsOfBackslashes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\\n", "\n"},
		{"\\t", "\t"},
		{"\\'", "'"},
		{"\\\"", "\""},
		{"\\`", "`"},
		{"Hello\\nWorld\\tTest", "Hello\nWorld\tTest"},
		{"\n", "\n"},
		{"Correct string", "Correct string"},
		{"\\nCorrect\t\\`", "\nCorrect\t`"},
		// A backslash before a real line break.
		{"\\\n", "\n"},
		{"First line\\\nSecond line", "First line\nSecond line"},
		// Runs of backslashes are one escape.
		{"\\\\n", "\n"},
		{"\\\\\\t", "\t"},
		{"\\\\\\\\`", "`"},
		{"", ""},
		{"abc def", "abc def"},
		{"C:\\Folder\\File", "C:\\Folder\\File"},
		{"C:\\Users\\name", "C:\\Users\name"},
		{"\\\\\\\nLine1\\\nLine2\\tTab\\\\`Tick\\\"", "\nLine1\nLine2\tTab`Tick\""},
		{"\\\\", "\\"},
		{"C:\\\\Users", "C:\\Users"},
		{"path\\\\to\\\\file", "path\to\\file"},
		{"line1\\\\\\nline2", "line1\nline2"},
		{"quote\\\\\"text\\\\nline", "quote\"text\nline"},
		{"LaTeX command \\\\title{Example}", "LaTeX command \title{Example}"},
		// A lone backslash at the end, and a run before a character that
		// is not escaped: the greedy regexp leaves one backslash.
		{"end\\", "end\\"},
		{"\\\\\\x", "\\x"},
	} {
		if got := unescapeRunsOfBackslashes(tc.in); got != tc.want {
			t.Errorf("unescapeRunsOfBackslashes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The fallback reading undoes exactly one level: an escaped backslash of
// the code stays a backslash, and a backslash before a line break stays.
func TestUnescapeOnce(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\\n", "\n"},
		{"\\\\n", "\\n"},
		{"printf(\\\"%d\\\\n\\\", 42);", "printf(\"%d\\n\", 42);"},
		{"a \\\nb", "a \\\nb"},
		{"C:\\Folder", "C:\\Folder"},
		{"end\\", "end\\"},
	} {
		if got := unescapeOnce(tc.in); got != tc.want {
			t.Errorf("unescapeOnce(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The readings tried: as written, then Gemini CLI's, then one level, each
// only when it is new.
func TestReadingsOf(t *testing.T) {
	got := readingsOf(`f(\"a\\n\")`, `g(\"a\\n\")`)
	want := []reading{
		{unescapeNone, `f(\"a\\n\")`, `g(\"a\\n\")`},
		{unescapeRuns, "f(\"a\n\")", "g(\"a\n\")"},
		{unescapeOneLevel, `f("a\n")`, `g("a\n")`},
	}
	if len(got) != len(want) {
		t.Fatalf("readingsOf = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reading %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := readingsOf(`f(\"a\")`, "x"); len(got) != 2 || got[1].how != unescapeRuns {
		t.Errorf("one level reading the same as Gemini CLI's is tried again: %+v", got)
	}
	if got := readingsOf("plain\nlines", "x"); len(got) != 1 {
		t.Errorf("nothing to unescape, yet readings %+v", got)
	}
}

// An over-escaped old_string and new_string are read as Gemini CLI reads
// them, and the model is told which reading matched.
func TestReplaceUnescapes(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, want, how string
	}{
		{
			name: "backslash before a real line break",
			file: "a = 1\nb = 2\nc = 3\n",
			old:  "a = 1\\\nb = 2",
			new:  "a = 1\\\nb = 20",
			want: "a = 1\nb = 20\nc = 3\n",
			how:  "each run of backslashes before n, t, r, a quote, a backtick, a backslash or a line break read as one escape",
		},
		{
			name: "doubled backslash before n",
			file: "x := 1\ny := 2\n",
			old:  "x := 1\\\\ny := 2",
			new:  "x := 1\\\\ny := 3\\\\n",
			want: "x := 1\ny := 3\n\n",
			how:  "each run of backslashes before n, t, r, a quote, a backtick, a backslash or a line break read as one escape",
		},
		{
			name: "mixed",
			file: "say(\"hi\")\n\tdone()\n",
			old:  "say(\\\\\"hi\\\")\\\n\\tdone()",
			new:  "say(\\\"bye\\\\\")\\n\\\\tdone()",
			want: "say(\"bye\")\n\tdone()\n",
			how:  "each run of backslashes before n, t, r, a quote, a backtick, a backslash or a line break read as one escape",
		},
		{
			name: "the code's own backslash: one level",
			file: "puts(\"a\\n\");\nreturn 0;\n",
			old:  "puts(\\\"a\\\\n\\\");",
			new:  "puts(\\\"b\\\\n\\\");",
			want: "puts(\"b\\n\");\nreturn 0;\n",
			how:  "(one level of escaping undone)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWorkspace(t, map[string]string{"f.txt": tc.file})
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
			res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "f.txt", "old_string": tc.old, "new_string": tc.new})
			wantOutput(t, res, "Successfully modified file: "+tw.abs("f.txt")+" (1 replacements). old_string matched after unescaping old_string and new_string "+
				map[bool]string{true: tc.how, false: "(" + tc.how + ")"}[strings.HasPrefix(tc.how, "(")]+".")
			if c := p.only(t); c.After != tc.want {
				t.Errorf("After = %q, want %q", c.After, tc.want)
			}
		})
	}
}

// A block matched with different indentation: every line of new_string
// gets the block's indentation in place of new_string's first line's, as
// Gemini CLI's applyIndentation does. Deeper lines keep their extra
// indentation, blank and whitespace-only lines become empty, and a line
// shallower than the first goes at the block's indentation.
func TestReplaceReindentsEveryLine(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{
			name: "python, old_string without the block's indentation",
			file: "class Report:\n    def render(self, rows):\n        for row in rows:\n            if row.visible:\n                self.emit(row)\n        return self.out\n",
			old:  "for row in rows:\n    if row.visible:\n        self.emit(row)\n",
			new:  "for row in rows:\n    if row.visible:\n        self.emit(row)\n\n        for cell in row.cells:\n            self.emit(cell)\n    \n    self.count += 1\nself.flush()\n",
			want: "class Report:\n    def render(self, rows):\n        for row in rows:\n            if row.visible:\n                self.emit(row)\n\n                for cell in row.cells:\n                    self.emit(cell)\n\n            self.count += 1\n        self.flush()\n        return self.out\n",
		},
		{
			// The block is the file's only indentation, so the file
			// shows no indentation step of its own.
			name: "a deep block alone in its file, old_string indented less",
			file: "<ul>\n            <li>one</li>\n            <li>two</li>\n</ul>\n",
			old:  "    <li>one</li>\n    <li>two</li>",
			new:  "    <li>one</li>\n    <li>\n        <b>two</b>\n    </li>",
			want: "<ul>\n            <li>one</li>\n            <li>\n                <b>two</b>\n            </li>\n</ul>\n",
		},
		{
			name: "tabs, old_string indented deeper",
			file: "func f() {\n\tif ok {\n\t\treturn\n\t}\n}\n",
			old:  "\t\t\tif ok {\n\t\t\t\treturn\n\t\t\t}",
			new:  "\t\t\tif ok {\n\t\t\t\tlog()\n\n\t\t\t\tif again {\n\t\t\t\t\treturn\n\t\t\t\t}\n\t\t\t}",
			want: "func f() {\n\tif ok {\n\t\tlog()\n\n\t\tif again {\n\t\t\treturn\n\t\t}\n\t}\n}\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWorkspace(t, map[string]string{"f.txt": tc.file})
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
			res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "f.txt", "old_string": tc.old, "new_string": tc.new})
			wantOutput(t, res, "Successfully modified file: "+tw.abs("f.txt")+" (1 replacements). old_string matched after comparing line by line, ignoring leading and trailing whitespace"+
				" (new_string was re-indented to the matched block: on every line, the indentation of its first line with text became that of the block's first line with text, "+
				"deeper lines keeping their extra indentation (converted to the file's where old_string's own lines show the file indents them differently), "+
				"and lines indented less than its first line were put at the block's first line's indentation).")
			if c := p.only(t); c.After != tc.want {
				t.Errorf("After:\n%q\nwant:\n%q", c.After, tc.want)
			}
		})
	}
}

// A block matched line by line lands with the file's indentation on
// every line, new lines deeper than any of old_string's included: also
// when old_string starts with the blank line (or lines) before the block,
// which has no indentation to go by, when the block starts the file, and
// when old_string indents in other steps than the file (tabs against
// spaces, two spaces against four), converted step by step.
func TestReplaceReindentsBlocksAfterBlankLines(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{
			name: "a method preceded by a blank line, old_string starting with it, without the class's indentation",
			file: "class Greeter:\n    greeting = \"hi\"\n\n    def greet(self, name):\n        if name:\n            return self.greeting + name\n        return self.greeting\n",
			old:  "\ndef greet(self, name):\n    if name:\n        return self.greeting + name\n    return self.greeting\n",
			new:  "\ndef greet(self, name):\n    if name:\n        for part in name.split():\n            if part:\n                return self.greeting + part\n    return self.greeting\n",
			want: "class Greeter:\n    greeting = \"hi\"\n\n    def greet(self, name):\n        if name:\n            for part in name.split():\n                if part:\n                    return self.greeting + part\n        return self.greeting\n",
		},
		{
			name: "tabs in the file, spaces in old_string, after a blank line",
			file: "package p\n\nfunc f(xs []int) int {\n\tn := 0\n\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn n\n}\n",
			old:  "\nfor _, x := range xs {\n    n += x\n}\n",
			new:  "\nfor _, x := range xs {\n    if x > 0 {\n        n += x\n    }\n}\n",
			want: "package p\n\nfunc f(xs []int) int {\n\tn := 0\n\n\tfor _, x := range xs {\n\t\tif x > 0 {\n\t\t\tn += x\n\t\t}\n\t}\n\treturn n\n}\n",
		},
		{
			name: "deeper nesting, two spaces in the file, four in old_string",
			file: "function main() {\n  setup();\n\n  if (ready) {\n    run();\n  }\n}\n",
			old:  "\nif (ready) {\n    run();\n}",
			new:  "\nif (ready) {\n    for (const job of jobs) {\n        if (job.ok) {\n            run(job);\n        }\n    }\n}",
			want: "function main() {\n  setup();\n\n  if (ready) {\n    for (const job of jobs) {\n      if (job.ok) {\n        run(job);\n      }\n    }\n  }\n}\n",
		},
		{
			name: "the block at the file's start, two spaces in old_string, four in the file",
			file: "def f():\n    if x:\n        return 1\n    return 2\n",
			old:  "def f():\n  if x:\n    return 1\n",
			new:  "def f():\n  if x:\n    if y:\n      return 1\n",
			want: "def f():\n    if x:\n        if y:\n            return 1\n    return 2\n",
		},
		{
			name: "preceded by two blank lines",
			file: "import os\n\n\ndef main():\n    if os.environ:\n        print(1)\n",
			old:  "\n\ndef main():\n  if os.environ:\n    print(1)\n",
			new:  "\n\ndef main():\n  if os.environ:\n    for k in os.environ:\n      print(k)\n",
			want: "import os\n\n\ndef main():\n    if os.environ:\n        for k in os.environ:\n            print(k)\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWorkspace(t, map[string]string{"f.txt": tc.file})
			p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
			res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "f.txt", "old_string": tc.old, "new_string": tc.new})
			if res.Error != "" {
				t.Fatal(res.Error)
			}
			wantContains(t, res.Output, "old_string matched after comparing line by line, ignoring leading and trailing whitespace")
			if c := p.only(t); c.After != tc.want {
				t.Errorf("After:\n%s\nwant:\n%s", c.After, tc.want)
			}
		})
	}
}

// When old_string's lines do not show how the file indents a new line of
// new_string (old_string indented in steps the file's cannot be told
// from), the edit is refused and the model told which line and why,
// rather than landed mis-indented.
func TestReplaceRefusesWhatCannotBeReindented(t *testing.T) {
	file := "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n"
	tw := newTestWorkspace(t, map[string]string{"f.go": file})
	p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
	res := run(t, tw.proposing(p, ReplaceName, Options{}), map[string]any{"file_path": "f.go",
		"old_string": "if x {\n   return\n}", "new_string": "if x {\n   log()\n    return\n}"})
	wantError(t, res, "Failed to edit "+tw.abs("f.go")+": old_string matched after comparing line by line, ignoring leading and trailing whitespace, "+
		"but new_string could not be given the file's indentation at line 2: new_string's line 3 (\"return\") is indented \"    \" beyond its first line, "+
		"and old_string's lines, indented unlike the file's, do not show how the file indents that. No edits made. "+
		"Give old_string and new_string the file's exact indentation, as read_file shows it.")
	if len(p.changes) != 0 {
		t.Errorf("proposed %d changes", len(p.changes))
	}
}

// Where old_string indents its lines relative to its first line unlike
// the file (tabs against spaces, two spaces against four), new lines get
// the file's indentation: as old_string's line of the same indentation
// shows, else step by step (where Gemini CLI's rule keeps old_string's
// indentation, mixing it into the file's).
func TestReindentConvertsWhatOldStringShows(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		newLines, old, block []string
		want                 string
	}{
		{
			name:     "spaces in old_string, tabs in the file",
			old:      []string{"    if x {", "        a()", "    }"},
			block:    []string{"\tif x {", "\t\ta()", "\t}"},
			newLines: []string{"    if x {", "        a()", "        b()", "            c()", "    }"},
			want:     "\tif x {\n\t\ta()\n\t\tb()\n\t\t\tc()\n\t}", // c() deeper than any line of old_string: two steps of it
		},
		{
			name:     "old_string and new_string copied from their first line's text: their other lines keep the file's indentation",
			old:      []string{"return f()", "    .then(g)"},
			block:    []string{"  return f()", "    .then(g)"},
			newLines: []string{"return f()", "    .then(g)", "    .then(h)"},
			want:     "  return f()\n    .then(g)\n    .then(h)",
		},
		{
			name:     "old_string copied from its first line's text, new_string indented relative to its first line, as Gemini CLI reads it",
			old:      []string{"return f()", "    .then(g)"},
			block:    []string{"  return f()", "    .then(g)"},
			newLines: []string{"return f()", "  .then(g)", "  .then(h)"},
			want:     "  return f()\n    .then(g)\n    .then(h)",
		},
		{
			name:     "old_string indented like the block: Gemini CLI's rule alone",
			old:      []string{"a:", "  b: 1"},
			block:    []string{"    a:", "      b: 1"},
			newLines: []string{"a:", "  b: 2", "    c: 3", "", "   ", "d: 4"},
			want:     "    a:\n      b: 2\n        c: 3\n\n\n    d: 4",
		},
		{
			name:     "a line shallower than new_string's first goes at the block's indentation",
			old:      []string{"  x()"},
			block:    []string{"\t\tx()"},
			newLines: []string{"  x()", "y()", " z()"},
			want:     "\t\tx()\n\t\ty()\n\t\tz()",
		},
	} {
		if got, err := reindent(tc.newLines, tc.old, tc.block); err != nil || got != tc.want {
			t.Errorf("%s: reindent = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
