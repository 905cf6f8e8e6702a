package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// shellAllowedHome is a HOME whose settings let every shell command run
// without asking (tools.allowed), so these tests do not depend on how
// the session asks; how a shell command is asked is tested with the
// confirmations.
func shellAllowedHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"tools":{"allowed":["run_shell_command"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

func shellCall(command string, more map[string]any) geminitest.Turn {
	args := map[string]any{"command": command}
	for k, v := range more {
		args[k] = v
	}
	return geminitest.CallTurn(geminitest.Call("run_shell_command", args))
}

// onlyTerminal is the one terminal the client made; it reads the
// terminals under the client's lock, so their fields read after it are
// current.
func onlyTerminal(t *testing.T, c *acptest.Client) *acptest.Terminal {
	t.Helper()
	terms := c.Terminals()
	if len(terms) != 1 {
		t.Fatalf("%d terminals were created, want 1", len(terms))
	}
	return terms[0]
}

// shellToolCall is the one run_shell_command tool_call.
func shellToolCall(t *testing.T, c *acptest.Client) sdk.SessionUpdateToolCall {
	t.Helper()
	calls := c.ToolCalls()
	if len(calls) != 1 || calls[0].Kind != sdk.ToolKindExecute {
		t.Fatalf("tool calls %+v, want one execute call", calls)
	}
	return calls[0]
}

func hasTerminal(content []sdk.ToolCallContent, id string) bool {
	return slices.ContainsFunc(content, func(c sdk.ToolCallContent) bool { return c.Terminal != nil && c.Terminal.TerminalId == id })
}

// A shell command runs in the client's terminal when the client has one:
// the terminal gets the command and the cwd, the tool call shows it while
// it runs and after, the model gets its output and exit code in the words
// of the local run, and the terminal is released.
func TestACPTerminalRunsShellCommand(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"sub/f.txt": "x"}, home: shellAllowedHome(t), cfg: acptest.Config{Terminal: true}},
		shellCall("echo hello; pwd; ls", map[string]any{"directory": "sub"}),
		geminitest.TextTurn("Done."))
	h.mustPrompt("Run it", sdk.StopReasonEndTurn)

	term := onlyTerminal(t, h.client)
	req := term.Request
	if req.Command != "bash" || !slices.Equal(req.Args, []string{"-c", "echo hello; pwd; ls"}) || req.Cwd == nil || *req.Cwd != h.path("sub") ||
		req.OutputByteLimit == nil || *req.OutputByteLimit != 64<<10 || req.SessionId != h.session {
		t.Errorf("terminal/create got %+v", req)
	}
	if !term.Released {
		t.Error("the terminal was not released")
	}
	if term.Killed {
		t.Error("a command that ended was killed")
	}

	call := shellToolCall(t, h.client)
	updates := h.client.ToolCallUpdates(call.ToolCallId)
	if len(updates) != 2 {
		t.Fatalf("tool_call_updates %+v, want in_progress then completed", updates)
	}
	live, final := updates[0], updates[1]
	if live.Status == nil || *live.Status != sdk.ToolCallStatusInProgress || !hasTerminal(live.Content, term.ID) {
		t.Errorf("the running call showed %+v, want in_progress with terminal %s", live, term.ID)
	}
	if final.Status == nil || *final.Status != sdk.ToolCallStatusCompleted || !hasTerminal(final.Content, term.ID) {
		t.Errorf("the final update %+v, want completed with terminal %s", final, term.ID)
	}
	// The terminal shows the output; the update does not repeat it.
	for _, c := range final.Content {
		if c.Content != nil {
			t.Errorf("the final update repeats text %+v", c.Content)
		}
	}

	resp := h.functionResponses(1)
	if len(resp) != 1 {
		t.Fatalf("function responses %v", resp)
	}
	// What happened only: the client's terminal has no process group.
	want := "Output: hello\n" + h.path("sub") + "\nf.txt"
	if got, _ := resp[0]["output"].(string); got != want {
		t.Errorf("the model got %q\nwant %q", got, want)
	}
}

// A failing command in the terminal reports its exit code, and its
// output, stderr included.
func TestACPTerminalFailingCommand(t *testing.T) {
	h := startACP(t, acpSetup{home: shellAllowedHome(t), cfg: acptest.Config{Terminal: true}},
		shellCall("echo oops >&2; exit 3", nil),
		geminitest.TextTurn("It failed."))
	h.mustPrompt("Run it", sdk.StopReasonEndTurn)
	term := onlyTerminal(t, h.client)
	if !term.Released {
		t.Error("the terminal was not released")
	}
	resp := h.functionResponses(1)
	if got, _ := resp[0]["output"].(string); got != "Output: oops\nExit Code: 3" {
		t.Errorf("the model got %q", got)
	}
	updates := h.client.ToolCallUpdates(shellToolCall(t, h.client).ToolCallId)
	final := updates[len(updates)-1]
	var text string
	for _, c := range final.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			text += c.Content.Content.Text.Text
		}
	}
	if text != "Exit code 3" || !hasTerminal(final.Content, term.ID) {
		t.Errorf("the final update %+v (text %q)", final, text)
	}
}

// session/cancel while the terminal's command runs answers "cancelled"
// within 2 s, and the terminal is killed and released.
func TestACPTerminalCancel(t *testing.T) {
	h := startACP(t, acpSetup{home: shellAllowedHome(t), cfg: acptest.Config{Terminal: true}},
		shellCall("sleep 30", nil),
		geminitest.TextTurn("Next answer."))
	h.cancelMidway("Sleep", "the terminal", func(c *acptest.Client) bool { return len(c.Terminals()) == 1 })
	term := onlyTerminal(t, h.client)
	if !term.Killed || !term.Released {
		t.Errorf("terminal killed %v, released %v; want both", term.Killed, term.Released)
	}
	// The session goes on.
	h.mustPrompt("And now?", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session); !strings.HasSuffix(got, "Next answer.") {
		t.Errorf("message after cancel %q", got)
	}
}

// Without the terminal capability the command runs here, as before.
func TestACPShellWithoutTerminalRunsLocally(t *testing.T) {
	h := startACP(t, acpSetup{home: shellAllowedHome(t)},
		shellCall("echo local > made.txt; cat made.txt", nil),
		geminitest.TextTurn("Done."))
	h.mustPrompt("Run it", sdk.StopReasonEndTurn)
	if n := len(h.client.Terminals()); n != 0 {
		t.Errorf("%d terminals were created without the capability", n)
	}
	if b, err := os.ReadFile(h.path("made.txt")); err != nil || string(b) != "local\n" {
		t.Errorf("made.txt: %q, %v", b, err)
	}
	got, _ := h.functionResponses(1)[0]["output"].(string)
	if !regexp.MustCompile(`^Output: local\nProcess Group PGID: \d+$`).MatchString(got) {
		t.Errorf("the model got %q", got)
	}
	updates := h.client.ToolCallUpdates(shellToolCall(t, h.client).ToolCallId)
	if final := updates[len(updates)-1]; final.Status == nil || *final.Status != sdk.ToolCallStatusCompleted || slices.ContainsFunc(final.Content, func(c sdk.ToolCallContent) bool { return c.Terminal != nil }) {
		t.Errorf("the final update %+v", final)
	}
}
