package tools

import (
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	files := demoFiles()
	tw := newTestWorkspace(t, files)
	p := &fakeProposer{decision: Decision{Outcome: Applied}}
	tool := tw.tool(ReplaceName, Options{Proposer: p})

	call := build(t, tool, map[string]any{"file_path": "main.go", "old_string": "\treturn \"Hello, \" + util.Title(name)", "new_string": "\treturn \"Hi, \" + util.Title(name)"})
	if call.Title() != "Edit main.go" || call.Kind() != KindEdit || call.Confirmation() != nil {
		t.Errorf("Title %q Kind %q", call.Title(), call.Kind())
	}
	res, err := call.Execute(t.Context())
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
	p := &fakeProposer{decision: Decision{Outcome: Applied}}
	tool := tw.tool(ReplaceName, Options{Proposer: p})

	wantError(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"}),
		"Failed to edit, expected 1 occurrence(s) but found 2 for old_string in file: "+tw.abs("a.txt")+". They start at lines 1, 2. No edits made. "+
			"Include more of the surrounding lines in old_string to make it unique, or set expected_replacements to 2 to replace them all.")
	wantError(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "y = 2", "new_string": "y = 3", "expected_replacements": 2.0}),
		"Failed to edit, expected 2 occurrence(s) but found 1 for old_string in file: "+tw.abs("a.txt")+". It starts at line 3. No edits made. "+
			"Set expected_replacements to 1 to replace just these.")
	wantError(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "q := 9", "new_string": "q := 3"}),
		"Failed to edit, 0 occurrences found for old_string in "+tw.abs("a.txt")+". No edits made. The exact text in old_string was not found. "+
			"Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify. "+
			"Also tried: the file's line endings, unescaping, ignoring indentation and surrounding whitespace, ignoring whitespace within lines. "+
			"No LLM correction was tried: no model is available for it.")
	if len(p.changes) != 0 {
		t.Fatalf("failed edits proposed %d changes", len(p.changes))
	}

	wantOutput(t, run(t, tool, map[string]any{"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 3", "expected_replacements": 2.0}),
		"Successfully modified file: "+tw.abs("a.txt")+" (2 replacements).")
	if c := p.only(t); c.After != "x = 3\nx = 3\ny = 2\n" {
		t.Errorf("After = %q", c.After)
	}
}

func TestReplaceCRLF(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"win.txt": "one\r\ntwo\r\nthree\r\n"})
	p := &fakeProposer{decision: Decision{Outcome: Applied}}
	res := run(t, tw.tool(ReplaceName, Options{Proposer: p}), map[string]any{"file_path": "win.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"})
	wantOutput(t, res, "Successfully modified file: "+tw.abs("win.txt")+" (1 replacements). old_string matched after converting its line endings to the file's.")
	if c := p.only(t); c.Before != "one\r\ntwo\r\nthree\r\n" || c.After != "1\r\n2\r\nthree\r\n" {
		t.Errorf("change = %q -> %q", c.Before, c.After)
	}
}

func TestReplaceSeesOverlay(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.go": "func disk() {}\n"})
	tw.open("a.go", "func buffer() {}\n")
	p := &fakeProposer{decision: Decision{Outcome: Applied}}
	tool := tw.tool(ReplaceName, Options{Proposer: p})

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
	p := &fakeProposer{decision: Decision{Outcome: Applied}}
	tool := tw.tool(ReplaceName, Options{Proposer: p})

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
	tool := tw.tool(ReplaceName, Options{Proposer: &fakeProposer{decision: Decision{Outcome: Applied}}})

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
