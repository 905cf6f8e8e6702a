//go:build unix

package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// One answer asks for more background commands than a session keeps, all
// at once: those beyond the bound are refused before they start, so what
// they would do never happens, and the model is told so; the others run
// until the session ends.
func TestBackgroundCommandsBeyondTheBoundNeverRun(t *testing.T) {
	const n = background.MaxHistory + 10
	root := t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := make([]*genai.FunctionCall, n)
	for i := range calls {
		// delay_ms: a command started, refused or not, has long touched
		// its marker when its call returns.
		calls[i] = geminitest.Call(tools.ShellName, map[string]any{
			"command": fmt.Sprintf("touch marker-%d; exec sleep 60", i), "is_background": true, "delay_ms": 500})
	}
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(calls...), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{
		Tools:     tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...),
		Workspace: ws, ApprovalMode: dialog.ApprovalYolo,
	})
	s := a.NewSession()
	t.Cleanup(func() {
		a.EndSession(s.ID())
		for _, e := range s.Background().List() {
			<-e.Process.Done()
		}
	})
	prompt(t, s, "start them all")

	const refusal = "Refused, nothing was run: 100 background commands are running in this session, as many as it keeps; one must end before another can start."
	var started, refused []int
	for i, fr := range responses(t, srv.Requests()[1]) {
		out, _ := fr.Response["output"].(string)
		switch {
		case fr.Response["error"] != nil:
			refused = append(refused, i)
			if fr.Response["error"] != refusal {
				t.Errorf("call %d answered %q, want %q", i, fr.Response["error"], refusal)
			}
		case strings.HasPrefix(out, "Command is running in background. PID: "):
			started = append(started, i)
		default:
			t.Errorf("call %d answered %v", i, fr.Response)
		}
	}
	if len(started) != background.MaxHistory || len(refused) != n-background.MaxHistory {
		t.Errorf("%d started, %d refused; want %d and %d", len(started), len(refused), background.MaxHistory, n-background.MaxHistory)
	}
	if kept := len(s.Background().List()); kept != background.MaxHistory {
		t.Errorf("the session keeps %d background processes, want %d", kept, background.MaxHistory)
	}
	marker := func(i int) bool {
		_, err := os.Stat(filepath.Join(root, fmt.Sprintf("marker-%d", i)))
		return err == nil
	}
	for _, i := range started {
		for deadline := time.Now().Add(patience); !marker(i); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("started command %d left no marker", i)
			}
		}
	}
	for _, i := range refused {
		if marker(i) {
			t.Errorf("refused command %d ran: its marker is there", i)
		}
	}
}
