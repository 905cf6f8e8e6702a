package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Requests as notifications (Neovim): the review arrives as gemini/request
// and its answer as gemini/response, matched by id.

// heldReview starts an edit whose review the user holds open, and returns
// the gemini/request id it came with.
func heldReview(t *testing.T, h *harness) (id string, release chan struct{}, result <-chan promptResult) {
	t.Helper()
	h.open("a.go")
	release = make(chan struct{})
	h.client.OnApplyEdit = lsptest.Hold(release)
	result = h.asyncPrompt(map[string]any{"prompt": "return 2"})
	m, err := h.client.WaitMessage(h.ctx, "gemini/request", nil)
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(m.Params, &req); err != nil || req.ID == "" || req.Method != "workspace/applyEdit" || !strings.Contains(string(req.Params), `"needsConfirmation":true`) {
		t.Fatalf("gemini/request = %s (%v)", m.Params, err)
	}
	return req.ID, release, result
}

func TestRequestNotifications(t *testing.T) {
	t.Run("the withdrawn request is named and a late answer changes nothing", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NeovimPlugin(), files: map[string]string{"a.go": aGo}},
			editTurns()[0], geminitest.TextTurn("still here"))
		id, _, result := heldReview(t, h)
		h.cancelSession(h.updates("toolCall")[0].SessionID)
		if res := waitResult(t, result); res.StopReason != "cancelled" {
			t.Fatalf("result = %+v", res)
		}
		if _, err := h.client.WaitMessage(h.ctx, "gemini/cancelRequest", func(p json.RawMessage) bool {
			return string(p) == `{"id":"`+id+`"}`
		}); err != nil {
			t.Fatalf("no gemini/cancelRequest for %s: %v", id, err)
		}
		// The plugin answers anyway, too late: dropped, and the connection
		// carries on.
		if err := h.client.Notify(h.ctx, "gemini/response", map[string]any{"id": id, "result": map[string]bool{"applied": true}}); err != nil {
			t.Fatal(err)
		}
		if res := h.prompt(map[string]any{"prompt": "again"}); res.Text != "still here" {
			t.Errorf("next prompt = %+v", res)
		}
		h.wantBuffer("a.go", aGo)
	})

	t.Run("an error answer fails the call and a second answer is dropped", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NeovimPlugin(), files: map[string]string{"a.go": aGo}},
			append(editTurns(), geminitest.TextTurn("again"))...,
		)
		id, release, result := heldReview(t, h)
		if err := h.client.Notify(h.ctx, "gemini/response", map[string]any{"id": id, "error": map[string]any{"code": -32803, "message": "the review window could not open"}}); err != nil {
			t.Fatal(err)
		}
		res := waitResult(t, result)
		out := h.toolOutputs(1)
		if res.StopReason != "end_turn" || len(out) != 1 || !strings.Contains(out[0], "the review window could not open") {
			t.Errorf("result = %+v, tool output = %q", res, out)
		}
		close(release) // the client's own answer now comes second
		h.client.WaitIdle(h.ctx, 200e6)
		h.wantBuffer("a.go", aGo)
		if res := h.prompt(map[string]any{"prompt": "again"}); res.StopReason != "end_turn" {
			t.Errorf("the connection did not survive: %+v", res)
		}
	})

	t.Run("malformed answers are reported and the review goes on", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.NeovimPlugin(), files: map[string]string{"a.go": aGo}}, editTurns()...)
		id, release, result := heldReview(t, h)
		for _, bad := range []map[string]any{
			{"result": map[string]bool{"applied": true}}, // no id
			{"id": 7, "result": nil},                     // id not a string
			{"id": id, "result": map[string]bool{"applied": true}, "error": map[string]any{"code": 1, "message": "x"}}, // both
		} {
			if err := h.client.Notify(h.ctx, "gemini/response", bad); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range []string{"missing required field", "must be a string, not number", "both a result and an error"} {
			if _, err := h.client.WaitMessage(h.ctx, "window/logMessage", func(p json.RawMessage) bool {
				var m struct{ Message string }
				return json.Unmarshal(p, &m) == nil && strings.Contains(m.Message, want)
			}); err != nil {
				t.Errorf("no window/logMessage saying %s: %v", want, err)
			}
		}
		// The malformed answers settled nothing: the user's own decision does.
		close(release)
		if res := waitResult(t, result); res.StopReason != "end_turn" {
			t.Fatalf("result = %+v", res)
		}
		h.wantBuffer("a.go", aGo) // Hold declines when released
		if out := h.toolOutputs(1); len(out) != 1 || !strings.Contains(out[0], "the user declined") {
			t.Errorf("tool output = %q", out)
		}
	})
}
