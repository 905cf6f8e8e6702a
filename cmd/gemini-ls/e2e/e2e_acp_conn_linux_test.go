package e2e

import (
	"context"
	"testing"
	"time"
)

// The ACP client going away during a shell command, by either end, ends
// gemini-ls acp as the end of its input does: the command's whole process
// group killed, the prompt cancelled and its session saved.
func TestACPClientGoneDuringShellCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave func(*testing.T, *acpHarness)
	}{
		{"stdin closed", func(t *testing.T, h *acpHarness) {
			if err := h.proc.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"stdout closed, stdin open", func(t *testing.T, h *acpHarness) {
			// The client stopped reading and keeps stdin open: the
			// first write that fails (EPIPE) tells.
			if err := h.proc.CloseStdout(); err != nil {
				t.Fatal(err)
			}
			// A request, whose answer is the write that fails.
			if _, err := h.proc.Write([]byte(`{"jsonrpc":"2.0","id":"after","method":"gemini/nothing","params":{}}` + "\n")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker, command := sleepCommand()
			h := startACP(t, acpSetup{home: shellAllowedHome(t)}, shellCall(command, nil))
			go func() { _, _ = h.prompt("run it") }()
			pgid := commandGroup(t, h.ctx, marker, h.proc.Cmd.Process.Pid)
			tc.leave(t, h)
			ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
			defer cancel()
			code, err := h.proc.Wait(ctx)
			if err != nil {
				_ = h.proc.Cmd.Process.Kill()
				t.Fatal("gemini-ls acp still runs 10s after the client went away")
			}
			if code != 0 {
				t.Errorf("exit status %d, want 0, as when its input ends", code)
			}
			wantGroupGone(t, pgid)
			wantSavedCancelled(t, h.env)
		})
	}
}
