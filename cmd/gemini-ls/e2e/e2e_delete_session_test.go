package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// gemini/deleteSession deletes a session, live or saved, as `gemini
// --delete-session` does: the server's list and a new server's list no
// longer hold it, and it cannot be resumed; an unknown id is invalid.
func TestDeleteSessionOverLSP(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	first := start(t, setup{profile: lsptest.Plugin(), env: env}, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	one := first.prompt(map[string]any{"prompt": "first session"})
	two := first.prompt(map[string]any{"prompt": "second session"})
	if one.SessionID == two.SessionID {
		t.Fatalf("both prompts went to session %s", one.SessionID)
	}

	// A live one.
	if err := first.client.Call(first.ctx, "gemini/deleteSession", map[string]any{"sessionId": one.SessionID}, nil); err != nil {
		t.Fatalf("deleting a live session: %v", err)
	}
	if got := listedIDs(t, first); got != two.SessionID {
		t.Errorf("sessions after deleting %s: %s, want only %s", one.SessionID, got, two.SessionID)
	}
	err := first.client.Call(first.ctx, "gemini/resumeSession", map[string]any{"sessionId": one.SessionID}, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("resuming the deleted session: %v", err)
	}
	if err := first.proc.Close(); err != nil {
		t.Fatal(err)
	}

	// A saved one, in a new server.
	second := start(t, setup{profile: lsptest.Plugin(), env: env})
	if got := listedIDs(t, second); got != two.SessionID {
		t.Fatalf("a new server lists %s, want only %s", got, two.SessionID)
	}
	if err := second.client.Call(second.ctx, "gemini/deleteSession", map[string]any{"sessionId": two.SessionID}, nil); err != nil {
		t.Fatalf("deleting a saved session: %v", err)
	}
	if got := listedIDs(t, second); got != "" {
		t.Errorf("sessions after deleting every one: %s", got)
	}

	for _, params := range []map[string]any{{"sessionId": two.SessionID}, {"sessionId": "../../etc/passwd"}} {
		err := second.client.Call(second.ctx, "gemini/deleteSession", params, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid params: sessionId: unknown session") {
			t.Errorf("deleting %v: %v", params, err)
		}
	}
	if err := second.client.Call(second.ctx, "gemini/deleteSession", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "sessionId") {
		t.Errorf("deleteSession without an id: %v", err)
	}
}

// listedIDs are the ids gemini/listSessions answers, space-separated.
func listedIDs(t *testing.T, h *harness) string {
	t.Helper()
	var list struct {
		Sessions []listedSession `json:"sessions"`
	}
	if err := h.client.Call(h.ctx, "gemini/listSessions", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list.Sessions {
		ids = append(ids, s.SessionID)
	}
	return strings.Join(ids, " ")
}
