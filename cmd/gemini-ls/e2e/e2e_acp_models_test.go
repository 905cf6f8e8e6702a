package e2e

import (
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Gemini CLI 0.61's ACP agent answers session/new and session/load with
// the unstable models field, and takes session/set_model: the model chosen
// gets the session's next request, and the config options show it.
func TestACPSetModel(t *testing.T) {
	h := startACP(t, acpSetup{noSession: true, env: []string{"GEMINI_MODEL=gemini-custom-test"}},
		geminitest.TextTurn("From the custom model."), geminitest.TextTurn("From flash."))
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	wantModels(t, "session/new", res.Models, "gemini-custom-test")
	h.mustPrompt("hi", sdk.StopReasonEndTurn)

	before := len(h.since(0))
	if _, err := h.client.Conn.UnstableSetSessionModel(h.ctx, sdk.UnstableSetSessionModelRequest{SessionId: h.session, ModelId: "gemini-3-flash-preview"}); err != nil {
		t.Fatalf("session/set_model: %v", err)
	}
	// The commands update may come any time after session/new's answer.
	u := slices.DeleteFunc(h.since(before), func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	if len(u) != 1 || u[0].ConfigOptionUpdate == nil ||
		configOption(t, u[0].ConfigOptionUpdate.ConfigOptions, "model").CurrentValue != "gemini-3-flash-preview" {
		t.Errorf("updates after session/set_model: %+v", u)
	}
	h.mustPrompt("hi again", sdk.StopReasonEndTurn)
	if reqs := h.model.Requests(); len(reqs) != 2 || reqs[0].Model != "gemini-custom-test" || reqs[1].Model != "gemini-3-flash-preview" {
		t.Errorf("requests went to %v", reqs)
	}

	for _, bad := range []sdk.UnstableSetSessionModelRequest{
		{SessionId: h.session, ModelId: "no-such-model"},
		{SessionId: "NoSuchSession", ModelId: "gemini-3-flash-preview"},
	} {
		if _, err := h.client.Conn.UnstableSetSessionModel(h.ctx, bad); acpCode(err) != -32602 {
			t.Errorf("session/set_model %+v: %v", bad, err)
		}
	}

	h.restart()
	loaded, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: h.session, Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	wantModels(t, "session/load", loaded.Models, "gemini-custom-test")
}

// wantModels fails unless models offers current first (it is none of
// the known models), then Gemini CLI 0.61's menu, and has it chosen.
func wantModels(t *testing.T, what string, models *sdk.SessionModelState, current sdk.ModelId) {
	t.Helper()
	if models == nil {
		t.Fatalf("%s answered no models", what)
	}
	var ids []sdk.ModelId
	for _, m := range models.AvailableModels {
		ids = append(ids, m.ModelId)
	}
	if models.CurrentModelId != current || len(ids) == 0 || ids[0] != current ||
		!slices.Contains(ids, "auto") || !slices.Contains(ids, "gemini-2.5-pro") || !slices.Contains(ids, "gemini-3-flash-preview") {
		t.Errorf("%s answered models %v, current %s; want %s first and chosen, then the menu", what, ids, models.CurrentModelId, current)
	}
}
