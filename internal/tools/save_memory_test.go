package tools

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

func TestAddMemory(t *testing.T) {
	const h = MemorySectionHeader
	cases := []struct{ name, before, fact, want string }{
		{"empty file", "", "I like Go", h + "\n- I like Go\n"},
		{"user text without a trailing newline", "# Mine\nkeep this", "x", "# Mine\nkeep this\n\n" + h + "\n- x\n"},
		{"user text with a trailing newline", "# Mine\n", "x", "# Mine\n\n" + h + "\n- x\n"},
		{"user text ending in a blank line", "# Mine\n\n", "x", "# Mine\n\n" + h + "\n- x\n"},
		{"existing section at the end", "intro\n\n" + h + "\n- a\n", "b", "intro\n\n" + h + "\n- a\n- b\n"},
		{"existing section without a final newline", h + "\n- a", "b", h + "\n- a\n- b\n"},
		{"existing section followed by another", h + "\n- a\n\n## Other\ntext  \n", "b", h + "\n- a\n- b\n\n## Other\ntext  \n"},
		{"existing empty section before another", h + "\n\n## Other\n", "b", h + "\n- b\n\n## Other\n"},
		{"a deeper heading stays inside the section", h + "\n- a\n### sub\n- c\n", "b", h + "\n- a\n### sub\n- c\n- b\n"},
		{"user's trailing blank lines are kept", h + "\n- a\n\n\n", "b", h + "\n- a\n- b\n\n\n"},
		{"CRLF file", "# Mine\r\n", "x", "# Mine\r\n\r\n" + h + "\r\n- x\r\n"},
		{"CRLF section", h + "\r\n- a\r\n", "b", h + "\r\n- a\r\n- b\r\n"},
		{"multi-line fact is one item", "", "line one\nline two\r\n", h + "\n- line one line two\n"},
		{"list markers the model added are dropped", "", "-- - remember me", h + "\n- remember me\n"},
		{"a fact cannot add a heading", "", "x\n## Injected", h + "\n- x ## Injected\n"},
		{"a heading-like line elsewhere is not the section", "### Gemini Added Memories extra\n", "x", "### Gemini Added Memories extra\n\n" + h + "\n- x\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := addMemory(c.before, c.fact); got != c.want {
				t.Errorf("addMemory(%q, %q) =\n%q\nwant\n%q", c.before, c.fact, got, c.want)
			}
		})
	}
}

// Adding memories one after another never repeats the heading.
func TestAddMemoryNeverDuplicatesTheHeading(t *testing.T) {
	text := "# Notes\n"
	for _, fact := range []string{"one", "two", "three"} {
		text = addMemory(text, fact)
	}
	if n := strings.Count(text, MemorySectionHeader); n != 1 {
		t.Errorf("%d headings in\n%s", n, text)
	}
	if want := "# Notes\n\n" + MemorySectionHeader + "\n- one\n- two\n- three\n"; text != want {
		t.Errorf("got\n%q\nwant\n%q", text, want)
	}
}

func saveMemoryCallFor(t *testing.T, path, fact string) Call {
	t.Helper()
	tool := saveMemory(path, nil)
	call, err := tool.Build(map[string]any{"fact": fact})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return call
}

func TestSaveMemoryWritesTheGlobalFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", MemoryFileName)
	call := saveMemoryCallFor(t, path, "My favourite colour is teal.\n")

	conf := call.Confirmation()
	if conf == nil || conf.Title != "Confirm Memory Save: "+path || len(conf.AllowKeys) != 1 || conf.AllowKeys[0] != MemoryName {
		t.Fatalf("Confirmation = %+v", conf)
	}
	if !strings.Contains(conf.Details, "+"+MemorySectionHeader) || !strings.Contains(conf.Details, "+- My favourite colour is teal.") {
		t.Errorf("confirmation details do not show the change:\n%s", conf.Details)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("asking for confirmation wrote the file")
	}

	res, err := call.Execute(context.Background(), CallInfo{})
	if err != nil || res.Error != "" {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if want := `{"success":true,"message":"Okay, I've remembered that: \"My favourite colour is teal.\""}`; res.Output != want {
		t.Errorf("Output = %s\nwant     %s", res.Output, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := MemorySectionHeader + "\n- My favourite colour is teal.\n"; string(data) != want {
		t.Errorf("file = %q, want %q", data, want)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestSaveMemoryKeepsTheUsersTextAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), MemoryFileName)
	user := "# My rules\r\nAlways use tabs.\t\r\n\r\n" + MemorySectionHeader + "\r\n- old fact\r\n\r\n## Later\r\nmore\r\n"
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := saveMemoryCallFor(t, path, "new fact").Execute(context.Background(), CallInfo{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "# My rules\r\nAlways use tabs.\t\r\n\r\n" + MemorySectionHeader + "\r\n- old fact\r\n- new fact\r\n\r\n## Later\r\nmore\r\n"
	if string(data) != want {
		t.Errorf("file =\n%q\nwant\n%q", data, want)
	}
	// Windows has no file modes to keep.
	if info, _ := os.Stat(path); runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", info.Mode().Perm())
	}
}

// A GEMINI.md linked from a dotfiles repository stays a link.
func TestSaveMemoryWritesThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "GEMINI.md")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("mine\n"), 0o644)
	link := filepath.Join(dir, ".gemini", MemoryFileName)
	os.MkdirAll(filepath.Dir(link), 0o755)
	platformtest.Symlink(t, real, link)
	if res, err := saveMemoryCallFor(t, link, "f").Execute(context.Background(), CallInfo{}); err != nil || res.Error != "" {
		t.Fatalf("Execute = %+v, %v", res, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(real); string(data) != "mine\n\n"+MemorySectionHeader+"\n- f\n" {
		t.Errorf("target = %q", data)
	}
}

func TestSaveMemoryRefusesASpecialFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), MemoryFileName)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := saveMemoryCallFor(t, path, "f").Execute(context.Background(), CallInfo{})
	if err != nil || !strings.HasPrefix(res.Error, "Failed to save memory. Detail: ") || !strings.Contains(res.Error, "not a regular file") {
		t.Errorf("Execute = %+v, %v", res, err)
	}
}

func TestSaveMemoryBuildErrors(t *testing.T) {
	tool := saveMemory("/x/GEMINI.md", nil)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "params must have required property 'fact'"},
		{map[string]any{"fact": 3.0}, "params/fact must be string"},
		{map[string]any{"fact": " \n "}, `Parameter "fact" must be a non-empty string.`},
		{map[string]any{"fact": "- "}, `Parameter "fact" must be a non-empty string.`},
	} {
		if _, err := tool.Build(c.args); err == nil || err.Error() != c.want {
			t.Errorf("Build(%v) error = %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := saveMemory("", nil).Build(map[string]any{"fact": "x"}); err == nil || !strings.Contains(err.Error(), settings.HomeVariable) {
		t.Errorf("Build without a memory file: %v", err)
	}
}
