package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// modelsReply is gemini/models' result.
type modelsReply struct {
	Current      string `json:"current"`
	CurrentName  string `json:"currentName"`
	ApprovalMode string `json:"approvalMode"`
	Models       []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"models"`
}

// Over LSP a plugin learns the model and 0.61's list with gemini/models,
// before any prompt; /model set --persist switches the next request's
// model, says so with a model update, and saves model.name in the user's
// settings; a usage error is the request's error.
func TestLSPModelCommand(t *testing.T) {
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home, "GEMINI_MODEL="}}, geminitest.TextTurn("Hi from flash."))
	models := func() modelsReply {
		t.Helper()
		var r modelsReply
		if err := h.client.Call(h.ctx, "gemini/models", nil, &r); err != nil {
			t.Fatalf("gemini/models: %v", err)
		}
		return r
	}
	before := models()
	var ids []string
	for _, m := range before.Models {
		ids = append(ids, m.ID)
	}
	want := []string{"auto", "gemini-3.1-pro-preview-customtools", "gemini-3-flash-preview", "gemini-2.5-pro", "gemini-3.8-flash", "gemini-3.5-flash-lite"}
	if before.Current != "auto" || before.CurrentName != "Auto" || !slices.Equal(ids, want) || before.Models[1].Name != "gemini-3.1-pro-preview" || before.Models[0].Description == "" {
		t.Errorf("gemini/models = %+v", before)
	}

	res := h.prompt(map[string]any{"prompt": "/model set gemini-3.8-flash --persist"})
	if res.StopReason != "end_turn" || res.Text != "Model set to gemini-3.8-flash (persisted)" {
		t.Errorf("/model set: %+v", res)
	}
	var changed []string
	for _, m := range h.client.Messages("gemini/update") {
		var u struct {
			SessionID string `json:"sessionId"`
			Kind      string `json:"kind"`
			Model     string `json:"model"`
			Name      string `json:"name"`
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.Kind == "model" {
			changed = append(changed, u.SessionID+" "+u.Model+" "+u.Name)
		}
	}
	if !slices.Equal(changed, []string{res.SessionID + " gemini-3.8-flash gemini-3.8-flash"}) {
		t.Errorf("model updates %q", changed)
	}
	if after := models(); after.Current != "gemini-3.8-flash" || after.CurrentName != "gemini-3.8-flash" {
		t.Errorf("gemini/models after /model set = %+v", after)
	}
	if got, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json")); err != nil || !strings.Contains(string(got), `"name": "gemini-3.8-flash"`) {
		t.Errorf("the user's settings: %s, %v", got, err)
	}
	if len(h.model.Requests()) != 0 {
		t.Errorf("/model set made a model request")
	}
	h.prompt(map[string]any{"prompt": "hi"})
	if reqs := h.model.Requests(); len(reqs) != 1 || reqs[0].Model != "gemini-3.8-flash" {
		t.Errorf("the prompt after /model set went to %+v", reqs)
	}

	var rpcErr *jsonrpc2.Error
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "/model set"}, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32803 || !strings.Contains(rpcErr.Message, "usage: /model set <model-name> [--persist]") {
		t.Errorf("/model set without a name: %v", err)
	}
}

// Over ACP /model set changes the session's model option, which the
// client is sent anew; a model not offered is listed first, as the one
// chosen.
func TestACPModelCommand(t *testing.T) {
	h := startACP(t, acpSetup{}, geminitest.TextTurn("Hi."))
	n := len(h.client.Updates())
	if got := h.command("/model set gemini-2.5-flash"); got != "Model set to gemini-2.5-flash" {
		t.Errorf("/model set said %q", got)
	}
	var option *sdk.SessionConfigOptionSelect
	for _, u := range h.since(n) {
		if c := u.ConfigOptionUpdate; c != nil {
			option = configOption(t, c.ConfigOptions, "model")
		}
	}
	if option == nil || option.CurrentValue != "gemini-2.5-flash" || (*option.Options.Ungrouped)[0].Value != "gemini-2.5-flash" {
		t.Fatalf("the model option after /model set: %+v", option)
	}
	h.mustPrompt("hi", sdk.StopReasonEndTurn)
	if reqs := h.model.Requests(); len(reqs) != 1 || reqs[0].Model != "gemini-2.5-flash" {
		t.Errorf("the prompt after /model set went to %+v", reqs)
	}
}

// Headless, /model set --persist is refused (issue 62: text from a pipe
// or -p changes no settings) and saves nothing: the user's settings are
// not written; -m is how a run chooses its model.
func TestHeadlessModelCommandPersists(t *testing.T) {
	h := newHeadless(t, nil)
	set := h.run("run", "-p", "/model set gemini-2.5-flash --persist")
	set.wantExit(t, exitInput)
	contains(t, "/model set's stderr", set.stderr, "/model set was not run: it changes the model, and with --persist your settings")
	if _, err := os.Stat(filepath.Join(homeOf(t, h.env), ".gemini", "settings.json")); !os.IsNotExist(err) {
		t.Errorf("the refused /model set --persist wrote the settings (%v)", err)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// Without credentials, where no prompt can run, gemini/models still says
// the model chosen, for the plugin's status.
func TestLSPModelsWithoutCredentials(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true})
	var r modelsReply
	if err := h.client.Call(h.ctx, "gemini/models", nil, &r); err != nil {
		t.Fatalf("gemini/models: %v", err)
	}
	if r.Current != "gemini-2.5-pro" || len(r.Models) != 6 {
		t.Errorf("gemini/models = %+v", r)
	}
}
