package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// /hooks, as Gemini CLI 0.61's: the project's settings (with a comment)
// configure a BeforeAgent hook "marker" and an unnamed AfterAgent hook,
// each adding a line to its file whenever it runs.
var hooksCommandFiles = map[string]string{".gemini/settings.json": `{
  // the project's hooks
  "hooks": {
    "BeforeAgent": [{"hooks": [{"type": "command", "name": "marker", "command": "echo ran >> \"$GEMINI_PROJECT_DIR/marker.txt\""}]}],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "echo ran >> \"$GEMINI_PROJECT_DIR/other.txt\""}]}]
  }
}
`}

// otherHook is the unnamed hook's name: its command.
const otherHook = `echo ran >> "$GEMINI_PROJECT_DIR/other.txt"`

// hookRuns are how many times each hook ran, from the lines of their files.
func hookRuns(read func(string) string) (marker, other int) {
	return strings.Count(read("marker.txt"), "ran\n"), strings.Count(read("other.txt"), "ran\n")
}

// Headless, each `run -p "/hooks …"` answers without a model request and
// its change holds in the next process: /hooks lists the hooks, /hooks
// disable marker writes hooksConfig.disabled in the workspace's settings
// (the comment kept) and the next run's prompt runs only the other hook;
// /hooks enable-all brings marker back, /hooks disable-all stops both.
func TestRunHooksCommand(t *testing.T) {
	h := newHeadless(t, hooksCommandFiles, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"), geminitest.TextTurn("four"))
	runs := func() (int, int) { return hookRuns(h.disk) }
	command := func(line, want string) {
		t.Helper()
		r := h.run("run", "-p", line)
		r.wantExit(t, 0)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%s printed %q, %q; want %q", line, r.stdout, r.stderr, want)
		}
	}
	prompt := func() {
		t.Helper()
		h.run("run", "-p", "hello").wantExit(t, 0)
	}

	command("/hooks", "**BeforeAgent**\n\n- **`marker`** [enabled]\n  Source: settings | Command: `echo ran >> \"$GEMINI_PROJECT_DIR/marker.txt\"`\n\n**AfterAgent**\n\n- **`"+otherHook+"`** [enabled]\n  Source: settings\n")
	prompt()
	if m, o := runs(); m != 1 || o != 1 {
		t.Fatalf("the first prompt ran the hooks %d and %d times, want once each", m, o)
	}
	command("/hooks disable marker", `Hook "marker" disabled by adding it to the disabled list in workspace (`+h.path(".gemini/settings.json")+`) settings.`)
	if got := h.disk(".gemini/settings.json"); !strings.Contains(got, "// the project's hooks") || !strings.HasSuffix(got, "\"hooksConfig\": {\n    \"disabled\": [\n      \"marker\"\n    ]\n  }\n}") {
		t.Errorf("the workspace's settings after /hooks disable:\n%s", got)
	}
	command("/hooks list", "- **`marker`** [disabled]")
	prompt()
	if m, o := runs(); m != 1 || o != 2 {
		t.Errorf("after /hooks disable marker, the next run's prompt ran marker %d times in all (want 1), the other %d (want 2)", m, o)
	}
	command("/hooks enable-all", "Enabled 1 hook(s) successfully.")
	prompt()
	if m, o := runs(); m != 2 || o != 3 {
		t.Errorf("after /hooks enable-all the hooks ran %d and %d times in all, want 2 and 3", m, o)
	}
	command("/hooks disable-all", "Disabled 2 hook(s) successfully.")
	prompt()
	if m, o := runs(); m != 2 || o != 3 {
		t.Errorf("after /hooks disable-all the hooks ran %d and %d times in all, want still 2 and 3", m, o)
	}
	if n := len(h.model.Requests()); n != 4 {
		t.Errorf("%d model requests for 4 prompts: the commands made some", n)
	}
	bad := h.run("run", "-p", "/hooks enable")
	bad.wantExit(t, exitInput)
	if !strings.Contains(bad.stderr, "usage: /hooks enable <hook-name>") {
		t.Errorf("/hooks enable without a name: stderr %q", bad.stderr)
	}
}

// Over LSP, /hooks disable stops the hook from the session's next prompt,
// without a restart and without a model request; the next server process
// reads it from the settings, and /hooks enable there brings it back.
func TestLSPHooksCommand(t *testing.T) {
	first := start(t, setup{profile: lsptest.Plugin(), files: hooksCommandFiles, env: trustTheWorkspace()},
		geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	runs := func() (int, int) { return hookRuns(first.readFile) }
	said := first.prompt(map[string]any{"prompt": "hello"})
	if m, o := runs(); m != 1 || o != 1 {
		t.Fatalf("the first prompt ran the hooks %d and %d times, want once each", m, o)
	}
	for _, c := range []struct{ line, want string }{
		{"/hooks", "- **`marker`** [enabled]"},
		{"/hooks disable marker", `Hook "marker" disabled by adding it to the disabled list in workspace (` + first.path(".gemini/settings.json") + `) settings.`},
		{"/hooks show", "- **`marker`** [disabled]"},
	} {
		res := first.prompt(map[string]any{"prompt": c.line, "sessionId": said.SessionID})
		if res.StopReason != "end_turn" || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s answered %+v, want a text with %q", c.line, res, c.want)
		}
	}
	first.prompt(map[string]any{"prompt": "hello again", "sessionId": said.SessionID})
	if m, o := runs(); m != 1 || o != 2 {
		t.Errorf("after /hooks disable marker, the session's next prompt ran marker %d times in all (want 1), the other %d (want 2)", m, o)
	}
	if n := len(first.model.Requests()); n != 2 {
		t.Errorf("%d model requests for 2 prompts: /hooks made some", n)
	}
	if err := first.proc.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, setup{profile: lsptest.Plugin(), root: first.root, env: trustTheWorkspace()},
		geminitest.TextTurn("three"), geminitest.TextTurn("four"))
	second.prompt(map[string]any{"prompt": "hello"})
	if m, o := runs(); m != 1 || o != 3 {
		t.Errorf("in the next server process marker ran %d times in all (want still 1), the other %d (want 3)", m, o)
	}
	if res := second.prompt(map[string]any{"prompt": "/hooks enable marker"}); !strings.HasPrefix(res.Text, `Hook "marker" enabled by removing it from the disabled list in workspace (`) {
		t.Errorf("/hooks enable marker answered %+v", res)
	}
	second.prompt(map[string]any{"prompt": "hello"})
	if m, o := runs(); m != 2 || o != 4 {
		t.Errorf("after /hooks enable marker the hooks ran %d and %d times in all, want 2 and 4", m, o)
	}
}
