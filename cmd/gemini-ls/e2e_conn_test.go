package main

import (
	"context"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/lsp/lsptest"
)

// The editor going away while the model answers ends gemini-ls within 2 s,
// with status 1: it does not wait for the answer.
func TestEditorGoneDuringModelCall(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, hangingTurn())
	h.asyncPrompt(map[string]any{"prompt": "think"})
	h.waitUpdate("text")
	closeStdin(t, h)
	h.wantExit(1, 2*time.Second)
}

func closeStdin(t *testing.T, h *harness) {
	t.Helper()
	if err := h.proc.Close(); err != nil {
		t.Fatal(err)
	}
}

// wantExit waits up to within for the server to exit with code.
func (h *harness) wantExit(code int, within time.Duration) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.ctx, within)
	defer cancel()
	got, err := h.proc.Wait(ctx)
	if err != nil {
		// Killed now: the harness would wait for it to end by itself.
		_ = h.proc.Cmd.Process.Kill()
		h.t.Fatalf("gemini-ls still runs %s after the editor went away", within)
	}
	if got != code {
		h.t.Errorf("exit status %d, want %d", got, code)
	}
}
