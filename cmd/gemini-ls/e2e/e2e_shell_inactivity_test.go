package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// inactiveAfterOneSecond is what the model is told of a command killed
// after printing nothing for tools.shell.inactivityTimeout: 1, in Gemini
// CLI 0.61's words (its minutes to one decimal).
const inactiveAfterOneSecond = "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output."

// sleepThenAnswer are the model's turns: a call of sleep 30, then text.
func sleepThenAnswer() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo started; sleep 30"})),
		geminitest.TextTurn("It was killed."),
	}
}

// A command printing nothing for tools.shell.inactivityTimeout seconds is
// killed, headless and over ACP, and the model told why: `sleep 30` under
// a 1 s limit ends well before its 30 s (20 s is the bound, for a loaded
// machine).
func TestShellInactivityTimeout(t *testing.T) {
	const settings = `{"tools": {"shell": {"inactivityTimeout": 1}}}`

	h := newHeadless(t, nil, sleepThenAnswer()...)
	writeFiles(t, filepath.Join(h.homeOf(), ".gemini"), map[string]string{"settings.json": settings})
	start := time.Now()
	h.run("run", "--approval-mode", "yolo", "-p", "wait").wantExit(t, 0)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("headless, the silent command was killed after %s", d)
	}
	rs := h.responses(1)
	if len(rs) != 1 {
		t.Fatalf("headless, %d function responses, want 1", len(rs))
	}
	if got, want := responseOutput(rs[0]), inactiveAfterOneSecond+" Below is the output before it was cancelled:\nstarted"; got != want {
		t.Errorf("headless, the model was told %q, want %q", got, want)
	}

	home := t.TempDir()
	writeFiles(t, filepath.Join(home, ".gemini"), map[string]string{"settings.json": settings})
	a := startACP(t, acpSetup{home: home, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}}, sleepThenAnswer()...)
	if _, err := a.client.Conn.SetSessionMode(a.ctx, sdk.SetSessionModeRequest{SessionId: a.session, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	a.mustPrompt("wait", sdk.StopReasonEndTurn)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("over ACP, the silent command was killed after %s", d)
	}
	reqs := a.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	last := reqs[1].Contents[len(reqs[1].Contents)-1]
	if got := fmt.Sprint(last.Parts[0].FunctionResponse.Response); !strings.Contains(got, inactiveAfterOneSecond) {
		t.Errorf("over ACP, the model was told %q, want %q", got, inactiveAfterOneSecond)
	}
}
