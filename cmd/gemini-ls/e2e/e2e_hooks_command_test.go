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

// Headless, `run -p "/hooks"` lists the hooks without a model request,
// but /hooks disable, enable-all and disable-all are refused (issue 62:
// text from a pipe or -p changes no settings): the settings stay as they
// were and the next run's prompt runs both hooks.
func TestRunHooksCommand(t *testing.T) {
	h := newHeadless(t, hooksCommandFiles, geminitest.TextTurn("one"))
	r := h.run("run", "-p", "/hooks")
	r.wantExit(t, 0)
	if want := "**BeforeAgent**\n\n- **`marker`** [enabled]\n  Source: settings | Command: `echo ran >> \"$GEMINI_PROJECT_DIR/marker.txt\"`\n\n**AfterAgent**\n\n- **`" + otherHook + "`** [enabled]\n  Source: settings\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("/hooks printed %q, %q; want %q", r.stdout, r.stderr, want)
	}
	settings := h.disk(".gemini/settings.json")
	for _, line := range []string{"/hooks disable marker", "/hooks disable-all", "/hooks enable-all"} {
		r := h.run("run", "-p", line)
		r.wantExit(t, exitInput)
		if !strings.Contains(r.stderr, "only where a person types it") {
			t.Errorf("%s: stderr %q", line, r.stderr)
		}
	}
	if got := h.disk(".gemini/settings.json"); got != settings {
		t.Errorf("the workspace's settings after refused /hooks commands:\n%s", got)
	}
	h.run("run", "-p", "hello").wantExit(t, 0)
	if m, o := hookRuns(h.disk); m != 1 || o != 1 {
		t.Errorf("the prompt ran the hooks %d and %d times, want once each", m, o)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Errorf("%d model requests for 1 prompt: the commands made some", n)
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
