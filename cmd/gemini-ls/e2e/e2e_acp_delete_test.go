package e2e

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// ACP has no method that deletes a session, nor has Gemini CLI 0.61's ACP
// agent: `/quit --delete` deletes the conversation, and session/list no
// longer lists it.
func TestACPQuitDeleteDeletesTheSession(t *testing.T) {
	h := startACP(t, acpSetup{}, geminitest.TextTurn("Noted."))
	h.mustPrompt("remember this", sdk.StopReasonEndTurn)
	if got := h.listed(); got != string(h.session) {
		t.Fatalf("session/list = %q, want the session %s", got, h.session)
	}
	if got := h.command("/quit --delete"); !strings.HasPrefix(got, "The conversation was deleted: its history, and its saved session.") {
		t.Errorf("/quit --delete answered %q", got)
	}
	if got := h.listed(); got != "" {
		t.Errorf("session/list after /quit --delete = %q, want none", got)
	}
}

// listed are the ids session/list answers for the harness's root.
func (h *acpHarness) listed() string {
	h.t.Helper()
	list, err := h.client.Conn.ListSessions(h.ctx, sdk.ListSessionsRequest{Cwd: &h.root})
	if err != nil {
		h.t.Fatalf("session/list: %v", err)
	}
	var ids []string
	for _, s := range list.Sessions {
		ids = append(ids, string(s.SessionId))
	}
	return strings.Join(ids, " ")
}
