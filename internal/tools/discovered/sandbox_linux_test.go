package discovered

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// A call of a discovered tool runs in the session's sandbox: what it
// writes outside the workspace never reaches the host, and its failure
// says it ran sandboxed; without one the write lands.
func TestCallRunsInTheBubblewrapSandbox(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	for _, sandboxed := range []bool{false, true} {
		cfg := testConfig(t)
		outside := t.TempDir()
		script := filepath.Join(cfg.Dir, "call.sh") // the project's own, as callCommands are
		body := "#!/bin/sh\ncat >/dev/null\necho x > " + outside + "/owned\necho '{\"ok\": true}'\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg.CallCommand = script
		if sandboxed {
			sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test"}, func() []string { return []string{cfg.Dir} }, t.TempDir(), "")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Door = spawn.NewDoor(spawn.Rules{Sandbox: sb})
		}
		call, err := discover(t, cfg)["discovered_tool_echo"].Build(map[string]any{"text": "hi"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Execute(context.Background(), tools.CallInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if failed := res.Error != ""; failed != sandboxed || sandboxed && !strings.Contains(res.Error, "Sandbox: The command ran in a sandbox") {
			t.Errorf("sandboxed %v: result %+v", sandboxed, res)
		}
		_, err = os.Stat(filepath.Join(outside, "owned"))
		if wrote := err == nil; wrote == sandboxed {
			t.Errorf("sandboxed %v: the call wrote outside the workspace: %v", sandboxed, wrote)
		}
	}
}
