package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// kindResult is gemini/prompt's result with the failure's kind.
type kindResult struct {
	StopReason string `json:"stopReason"`
	Error      string `json:"error"`
	ErrorKind  string `json:"errorKind"`
}

// A failed prompt carries its kind beside its sentence, in the result and
// in the error update, for the editor to offer the fix from (re-enter
// the key, open the quota page, retry): an invalid key the editor keeps
// (named as the editor's, not as a GEMINI_API_KEY the user never set), a
// day's quota used up, a model endpoint that refuses connections, and
// one that drops the connection before it answers.
func TestLSPFailuresCarryTheirKind(t *testing.T) {
	const editorsKey = "editor-kept-key-77b0"
	for _, c := range []struct {
		name  string
		turns []geminitest.Turn
		env   []string
		noKey bool
		kind  string
		says  string
	}{
		{name: "invalid key", turns: []geminitest.Turn{geminitest.InvalidAPIKey()}, env: []string{auth.EditorKeyVar + "=" + editorsKey}, noKey: true,
			kind: "invalid_api_key", says: "The API key stored in the editor is not valid"},
		{name: "quota", turns: []geminitest.Turn{geminitest.DailyQuotaExhausted("gemini-2.5-flash", 26*time.Second)}, env: []string{"GEMINI_MODEL=gemini-2.5-flash"},
			kind: "quota", says: "The quota for gemini-2.5-flash is used up"},
		{name: "network", env: []string{"GOOGLE_GEMINI_BASE_URL=" + geminitest.RefusingURL(t)},
			kind: "network", says: "Could not connect to"},
		{name: "dropped connection", turns: []geminitest.Turn{{Cut: true}, {Cut: true}, {Cut: true}, {Cut: true}},
			kind: "network", says: "check the network connection"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := start(t, setup{env: c.env, noKey: c.noKey}, c.turns...)
			var res kindResult
			if err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, &res); err != nil {
				t.Fatalf("gemini/prompt: %v", err)
			}
			if res.StopReason != "error" || res.ErrorKind != c.kind || !strings.Contains(res.Error, c.says) {
				t.Errorf("result %+v, want errorKind %q and an error saying %q", res, c.kind, c.says)
			}
			if strings.Contains(res.Error, "GEMINI_API_KEY") && c.noKey {
				t.Errorf("the error names GEMINI_API_KEY, which the user never set: %q", res.Error)
			}
			var kinds []string
			for _, m := range h.client.Messages("gemini/update") {
				var u struct{ Kind, ErrorKind string }
				if json.Unmarshal(m.Params, &u) == nil && u.Kind == "error" {
					kinds = append(kinds, u.ErrorKind)
				}
			}
			if len(kinds) != 1 || kinds[0] != c.kind {
				t.Errorf("the error updates' kinds are %q, want [%q]", kinds, c.kind)
			}
		})
	}
}

// With no key at all a prompt is refused before it runs: RequestFailed,
// whose data names the kind (no_api_key), so the editor offers to enter
// a key or sign in without reading Gemini CLI's message.
func TestLSPNoKeyIsAKind(t *testing.T) {
	h := start(t, setup{noKey: true})
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("gemini/prompt = %v, want a JSON-RPC error", err)
	}
	var data struct{ ErrorKind string }
	if json.Unmarshal(rpcErr.Data, &data); data.ErrorKind != "no_api_key" {
		t.Errorf("the error's data %s, want errorKind no_api_key", rpcErr.Data)
	}
}
