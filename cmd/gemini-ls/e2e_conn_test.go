package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// A method name or an id that is not UTF-8 comes back in a frame that is
// valid JSON and valid UTF-8, the bad bytes replaced with U+FFFD.
func TestInvalidUTF8IsNeverEchoed(t *testing.T) {
	h := start(t, setup{profile: lsptest.VSCode()})
	for _, tc := range []struct {
		name, id, method, wantID, wantMessage string
	}{
		{"method", "raw-m", "gemini/\xff\xfeprompt", "raw-m", "method not found: gemini/\uFFFDprompt"},
		{"id", "raw-\xc3", "gemini/nothing", "raw-\uFFFD", "method not found: gemini/nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := h.client.WriteRaw(`{"jsonrpc":"2.0","id":"` + tc.id + `","method":"` + tc.method + `","params":{}}`); err != nil {
				t.Fatal(err)
			}
			raw, err := h.client.RawResponse(h.ctx, strings.TrimPrefix(tc.wantID, "raw-"))
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(raw) || !json.Valid(raw) {
				t.Fatalf("response frame %q is not valid UTF-8 JSON", raw)
			}
			var resp struct {
				ID    string `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &resp); err != nil {
				t.Fatal(err)
			}
			if resp.ID != tc.wantID || resp.Error.Code != -32601 || resp.Error.Message != tc.wantMessage {
				t.Errorf("response = %+v, want id %q, MethodNotFound %q", resp, tc.wantID, tc.wantMessage)
			}
		})
	}
	// The connection is fine afterwards.
	if err := h.client.Call(h.ctx, "gemini/sessions", map[string]any{}, nil); err != nil {
		t.Errorf("gemini/sessions after the bad frames: %v", err)
	}
}
