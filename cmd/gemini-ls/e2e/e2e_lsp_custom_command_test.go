package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// questions records what a client was asked.
type questions struct {
	mu    sync.Mutex
	asked []string
}

func (q *questions) add(s string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.asked = append(q.asked, s)
}

func (q *questions) all() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.asked...)
}

// The custom command of TestCustomCommandSameInACPAndHeadless, run over
// LSP from the plugins' gemini/prompt and from a stock client's
// gemini.prompt, sends the model the same expanded prompt, its !{…}
// asked about first through the client's way of asking.
func TestCustomCommandSameOverLSP(t *testing.T) {
	files := map[string]string{"notes.txt": "the notes"}
	home := commandHome(t, map[string]string{"git/review.toml": reviewCommand})
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	want := "Review main with care.\nNotes: the notes\nBranch: branch-main\n\n"

	h := start(t, setup{profile: lsptest.Plugin(), files: files, env: env}, geminitest.TextTurn("Reviewed."))
	var confirmed questions
	h.client.OnConfirm = func(_ context.Context, p json.RawMessage) string {
		confirmed.add(string(p))
		return "proceed_once"
	}
	if res := h.prompt(map[string]any{"prompt": "/git:review main"}); res.StopReason != "end_turn" || res.Text != "Reviewed." {
		t.Errorf("gemini/prompt = %+v", res)
	}
	if got := lastUserText(t, h.model.Requests(), 0); got != want {
		t.Errorf("gemini/prompt sent the model %q, want %q", got, want)
	}
	if asked := confirmed.all(); len(asked) != 1 || !strings.Contains(asked[0], `"details":"echo branch-main"`) || !strings.Contains(asked[0], `"kind":"execute"`) {
		t.Errorf("gemini/confirm asked %q, want once about echo branch-main as a shell call", asked)
	}

	stock := start(t, setup{profile: lsptest.Eglot(), files: files, env: env}, geminitest.TextTurn("Reviewed."))
	var shown questions
	stock.client.OnShowMessageRequest = func(message string, actions []string) string {
		shown.add(message)
		return "Allow Once"
	}
	if _, msg := stock.command("/git:review main"); msg != "Gemini: Reviewed." {
		t.Errorf("gemini.prompt ended with %q", msg)
	}
	if got := lastUserText(t, stock.model.Requests(), 0); got != want {
		t.Errorf("gemini.prompt sent the model %q, want %q", got, want)
	}
	if asked := shown.all(); len(asked) != 1 || !strings.Contains(asked[0], "echo branch-main") {
		t.Errorf("window/showMessageRequest asked %q, want once about echo branch-main", asked)
	}
}

// A !{cmd} declined over LSP is not run and nothing reaches the model:
// gemini/prompt answers an error saying so, gemini.prompt shows it.
func TestCustomCommandShellDeclinedOverLSP(t *testing.T) {
	home := commandHome(t, map[string]string{"mark.toml": "prompt = \"Marked: !{touch marker}\""})
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}

	h := start(t, setup{profile: lsptest.Plugin(), env: env})
	h.client.OnConfirm = func(context.Context, json.RawMessage) string { return "cancel" }
	var res promptResult
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "/mark"}, &res)
	if err == nil || !strings.Contains(err.Error(), "/mark") || !strings.Contains(err.Error(), "declined") {
		t.Errorf("gemini/prompt = %+v, %v; want an error saying /mark was declined", res, err)
	}

	stock := start(t, setup{profile: lsptest.Eglot(), env: env})
	stock.client.OnShowMessageRequest = func(string, []string) string { return "Reject" }
	if _, msg := stock.command("/mark"); !strings.Contains(msg, "/mark") || !strings.Contains(msg, "declined") {
		t.Errorf("gemini.prompt ended with %q, want it to say /mark was declined", msg)
	}
	for _, hh := range []*harness{h, stock} {
		if _, err := os.Stat(hh.path("marker")); err == nil {
			t.Error("the declined command ran")
		}
		if n := len(hh.model.Requests()); n != 0 {
			t.Errorf("%d model requests, want none", n)
		}
	}
}

// A "/xyz" naming no command is refused, nothing sent (0.61 sends it as
// typed); a "/path" prompt goes to the model as typed.
func TestUnknownSlashCommandOverLSPIsRefused(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, geminitest.TextTurn("ok"))
	var res promptResult
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "/xyz please"}, &res)
	if err == nil || !strings.Contains(err.Error(), "/xyz is not a command") {
		t.Fatalf("/xyz please: %v, %+v; want it refused", err, res)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Fatalf("%d model requests for an unknown command", n)
	}
	h.prompt(map[string]any{"prompt": "/usr/bin/env is broken"})
	if got := lastUserText(t, h.model.Requests(), 0); got != "/usr/bin/env is broken" {
		t.Errorf("the model was sent %q, want the prompt as typed", got)
	}
}

// commandsResult is gemini/commands' result.
type commandsResult struct {
	Commands []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Hint        string `json:"hint"`
		Source      string `json:"source"`
	} `json:"commands"`
	Errors []string `json:"errors"`
}

// gemini/commands lists the built-ins, the custom commands and, once
// their server is up, the MCP prompts; a custom command replaces the
// built-in of its name; params that are not an object are refused.
func TestGeminiCommandsListsUserCommands(t *testing.T) {
	home := commandHome(t, map[string]string{"git/review.toml": reviewCommand, "stats.toml": "description = \"My stats\"\nprompt = \"count\"\n"})
	files := map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}})}
	h := start(t, setup{profile: lsptest.Plugin(), files: files, env: []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}})
	found := map[string]string{}
	for found["greet"] == "" {
		var res commandsResult
		if err := h.client.Call(h.ctx, "gemini/commands", map[string]any{}, &res); err != nil {
			t.Fatalf("gemini/commands: %v", err)
		}
		for _, c := range res.Commands {
			found[c.Name] = c.Source + "|" + c.Description + "|" + c.Hint
		}
		select {
		case <-h.ctx.Done():
			t.Fatalf("the MCP prompt was never listed: %v", found)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if got := found["git:review"]; !strings.HasPrefix(got, "user|Review a file|") || strings.HasSuffix(got, "|") {
		t.Errorf("/git:review listed as %q, want it with its source, description and a hint", got)
	}
	if got := found["greet"]; got != `mcp|Greets someone.|--name="…" [--style="…"]` {
		t.Errorf("/greet listed as %q", got)
	}
	if got := found["chat"]; !strings.HasPrefix(got, "built-in|") || !strings.Contains(got, "save <tag>") {
		t.Errorf("/chat listed as %q", got)
	}
	if got := found["stats"]; !strings.HasPrefix(got, "user|My stats|") {
		t.Errorf("/stats listed as %q, want the user's command in place of the built-in", got)
	}

	var res commandsResult
	err := h.client.Call(h.ctx, "gemini/commands", []int{1}, &res)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams {
		t.Errorf("gemini/commands with params [1] = %+v, %v; want InvalidParams", res, err)
	}
}

// Listing the commands needs no credentials: a client can show them
// before the user has logged in.
func TestGeminiCommandsWithoutCredentials(t *testing.T) {
	home := commandHome(t, map[string]string{"git/review.toml": reviewCommand})
	h := start(t, setup{profile: lsptest.Plugin(), noKey: true, env: []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}})
	var res commandsResult
	if err := h.client.Call(h.ctx, "gemini/commands", nil, &res); err != nil {
		t.Fatalf("gemini/commands: %v", err)
	}
	var names []string
	for _, c := range res.Commands {
		names = append(names, c.Name)
	}
	var builtins []string
	for _, b := range builtin.Table() {
		builtins = append(builtins, b.Name)
	}
	want := strings.Join(append(builtins, "git:review"), " ")
	if strings.Join(names, " ") != want {
		t.Errorf("gemini/commands lists %q, want %q", names, want)
	}
}
