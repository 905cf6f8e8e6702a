package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Headless in the default mode, a call that asks is refused in words
// naming its tool and what would let it run (yolo, or tools.allowed),
// not in a shell command's words: here a shell command that settings
// do not allow, the shell being offered for the git commands they do.
// A tool the mode does not offer at all (web_fetch: only auto_edit
// does, as Gemini CLI's write.toml allows it there) is not found, as
// in 0.61, and the user is told which mode offers it.
func TestRunRefusalsNameTheToolAndTheMode(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"tools": {"allowed": ["run_shell_command(git)"]}}`},
		geminitest.CallTurn(
			geminitest.Call("web_fetch", map[string]any{"prompt": "Summarize https://example.com/page"}),
			geminitest.Call("run_shell_command", map[string]any{"command": "touch marker"}),
		),
		geminitest.TextTurn("done"),
	)
	r := h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "-p", "go")
	r.wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 2 {
		t.Fatalf("responses = %+v", fr)
	}
	if e := responseError(fr[0]); !strings.HasPrefix(e, `Tool "web_fetch" not found. Did you mean`) {
		t.Errorf("web_fetch answered %q, want it not found", e)
	}
	contains(t, "stderr", r.stderr, "web_fetch is not offered to the model in the default approval mode (the auto_edit approval mode offers it; settings' tools.allowed can allow it)")
	e := responseError(fr[1])
	for _, want := range []string{"run_shell_command needs confirmation", "running headless", "--approval-mode yolo", "allow run_shell_command in settings' tools.allowed"} {
		if !strings.Contains(e, want) {
			t.Errorf("run_shell_command refused with %q, want it to say %q", e, want)
		}
	}
	if h.exists("marker") {
		t.Error("the shell command ran")
	}
}

// As Gemini CLI 0.61, a headless run refuses a folder that is not
// trusted, before any request and asking nothing, saying how to trust it
// (exit 55: /permissions trust from an editor, --skip-trust) in one
// line that names gemini-ls once; so does GEMINI_CLI_TRUST_WORKSPACE=false,
// and --skip-trust runs in it.
func TestRunRefusesAnUntrustedFolder(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "one\n", ".gemini/settings.json": `{"tools": {"discoveryCommand": "touch discovery-ran"}}`},
		geminitest.CallTurn(geminitest.Call("replace", map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"})),
		geminitest.TextTurn("done"),
	)
	for _, env := range [][]string{h.untrusted(), append(h.env, "GEMINI_CLI_TRUST_WORKSPACE=false")} {
		r := h.runIn(h.root, env, "run", "--approval-mode", "auto_edit", "-p", "shout")
		r.wantExit(t, exitUntrusted)
		for _, want := range []string{"\ngemini-ls is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory", "`/permissions trust` in your editor", "--skip-trust", "GEMINI_CLI_TRUST_WORKSPACE=true"} {
			contains(t, "stderr", "\n"+r.stderr, want)
		}
		if strings.Contains(r.stderr, "gemini-ls: gemini-ls") {
			t.Errorf("stderr names gemini-ls twice: %q", r.stderr)
		}
		if n := len(h.model.Requests()); n != 0 || h.disk("a.txt") != "one\n" || h.exists("discovery-ran") {
			t.Fatalf("refused, yet %d model requests, a.txt %q, discovery ran: %v", n, h.disk("a.txt"), h.exists("discovery-ran"))
		}
	}
	r := h.runIn(h.root, h.untrusted(), "run", "--skip-trust", "--approval-mode", "auto_edit", "-p", "shout")
	r.wantExit(t, 0)
	if got := h.disk("a.txt"); got != "ONE\n" {
		t.Errorf("with --skip-trust a.txt = %q, want the edit made", got)
	}
}

// A headless run's refusal of an edit is no user's no: the later calls
// of the answer still run, where a user's decline would cancel them (as
// Gemini CLI 0.61 denies by policy there, an error that cancels nothing).
// The edit is of a protected file (.envrc) in auto_edit, which asks, and
// nobody can be asked.
func TestRunRefusedEditDoesNotCancelTheLaterCalls(t *testing.T) {
	h := newHeadless(t, map[string]string{"a.txt": "one\n", ".envrc": "one\n"},
		geminitest.CallTurn(
			geminitest.Call("replace", map[string]any{"file_path": ".envrc", "old_string": "one", "new_string": "ONE"}),
			geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}),
		),
		geminitest.TextTurn("done"),
	)
	h.runIn(h.root, append(h.env, trustTheWorkspace()...), "run", "--approval-mode", "auto_edit", "-p", "shout").wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 2 || !strings.Contains(responseError(fr[0]), "running headless") || responseOutput(fr[1]) != "one\n" || h.disk(".envrc") != "one\n" {
		for _, r := range fr {
			t.Errorf("%s answered %v", r.Name, r.Response)
		}
		t.Errorf("want the edit refused and the file read")
	}
}
