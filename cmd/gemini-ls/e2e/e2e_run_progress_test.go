package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A headless run in text says on stderr, as it happens, each call that
// ran and each file it wrote, with the lines added and removed, named
// from the run's directory; stdout has the answer alone. Gemini CLI 0.61
// says nothing of either, and a user running a prompt that edits would
// not know it had.
func TestRunTextSaysWhatRanAndWhatWasWritten(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "one\ntwo\n"},
		geminitest.CallTurn(geminitest.Call("replace", map[string]any{"file_path": "a.txt", "old_string": "two", "new_string": "2", "instruction": "Number the second line."})),
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": "notes/new.txt", "content": "x\ny\n"})),
		geminitest.TextTurn("Done."),
	)
	r := h.run("run", "--approval-mode", "auto_edit", "-p", "edit")
	r.wantExit(t, 0)
	if r.stdout != "Done.\n" {
		t.Errorf("stdout = %q, want the answer alone", r.stdout)
	}
	want := []string{
		"gemini-ls: edited a.txt (+1 -1)",
		"gemini-ls: \u2713 replace (",
		"gemini-ls: created " + filepath.Join("notes", "new.txt") + " (+2)",
		"gemini-ls: \u2713 write_file (",
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(want), r.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("stderr line %d = %q, want it to start %q", i+1, lines[i], w)
		}
	}
	if got := h.readFile("a.txt"); got != "one\n2\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// make demo's scripted model (testdata/demo.json) answers with what the
// real grep_search found where it ran, which it cannot know in advance:
// the TODOs of this workspace, by file and line, and that it is a
// script quoting the tool; stderr says the call ran. It does so with the
// auto model, whose router it answers by a rule, and with a model the
// user's GEMINI_MODEL names, which asks no router.
func TestDemoScriptQuotesWhatGrepFound(t *testing.T) {
	for name, model := range map[string]string{"auto": "", "a model named": pinnedModel} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "..", "internal", "agent", "geminitest", "testdata", "demo.json"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			script, err := geminitest.ReadScript(f)
			if err != nil {
				t.Fatal(err)
			}
			h := newHeadless(t, map[string]string{
				"main.go":  "package main\n\n// TODO: say goodbye too.\nfunc main() {}\n",
				"notes.md": "todo, in small letters, is not one\n",
			}, script.Turns...)
			for _, r := range script.Rules {
				h.model.AddRule(r)
			}
			env := h.withoutEnv("GEMINI_MODEL")
			if model != "" {
				env = append(env, model)
			}
			r := h.runIn(h.root, env, "run", "--skip-trust", "-p", "Where are the TODOs?")
			r.wantExit(t, 0)
			for _, want := range []string{"Found 1 match for pattern", "File: main.go", "L3: // TODO: say goodbye too.", "the demo's scripted model"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the demo's answer does not say %q:\n%s", want, r.stdout)
				}
			}
			if strings.Contains(r.stdout, "notes.md") {
				t.Errorf("the demo's answer names a file without a TODO:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, "gemini-ls: \u2713 grep_search") {
				t.Errorf("stderr does not say grep_search ran:\n%s", r.stderr)
			}
		})
	}
}
