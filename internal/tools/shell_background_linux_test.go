package tools

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
)

// read_background_output of a sandboxed background command that failed
// says it ran in the sandbox, as run_shell_command does of a foreground
// one; of one that succeeded, or still runs, it says nothing of it.
func TestReadBackgroundOutputSaysTheBubblewrapSandboxRefused(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	tw := newTestWorkspace(t, nil)
	home := t.TempDir()
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test"}, tw.ws.Roots, home, "")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Shell: ShellOptions{Door: doorOf(sb)}}
	var reg background.Registry
	t.Cleanup(func() { _ = reg.Close() })
	for _, tt := range []struct {
		command string
		note    bool
	}{
		{"sleep 0.3; echo owned > " + home + "/owned.txt", true},
		{"sleep 0.3; echo made > made.txt", false},
	} {
		call := build(t, tw.tool(ShellName, opts), map[string]any{"command": tt.command, "is_background": true, "delay_ms": 0})
		res, err := call.Execute(t.Context(), CallInfo{Background: &reg})
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(res.Display, "Background process started with PID "), "."))
		if err != nil {
			t.Fatalf("%s: %+v", tt.command, res)
		}
		e, _ := reg.Get(pid)
		read := func() Result {
			res, err := build(t, tw.tool(ReadBackgroundName, opts), map[string]any{"pid": pid}).Execute(t.Context(), CallInfo{Background: &reg})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		// Read while it runs, when it still runs after the read.
		if running := read(); e.Running() && strings.Contains(running.Output, "Sandbox:") {
			t.Errorf("%s: while it runs: %q", tt.command, running.Output)
		}
		select {
		case <-e.Process.Done():
		case <-time.After(20 * time.Second): // a hang guard, not a bound
			t.Fatalf("%s did not end", tt.command)
		}
		ended := read()
		if has := strings.Contains(ended.Output, "\nSandbox: "+sb.Note()) && strings.Contains(ended.Display, "Sandboxed: "+sb.Describe()); has != tt.note {
			t.Errorf("%s: sandbox note = %v, want %v:\n%s\n%s", tt.command, has, tt.note, ended.Output, ended.Display)
		}
	}
}
