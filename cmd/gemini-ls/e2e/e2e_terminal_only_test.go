package e2e

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// /vim, Gemini CLI 0.61's terminal-only command, is answered in a
// sentence headless, over LSP and over ACP, and a mistyped command (/mem)
// is refused with the nearest names: neither reaches the model, where
// both went as prompts before.
func TestTerminalOnlyAndUnknownCommandsEverywhere(t *testing.T) {
	h := newHeadless(t, nil)
	vim := h.run("run", "-p", "/vim")
	vim.wantExit(t, 0)
	contains(t, "/vim's output", vim.stdout, "/vim toggles Gemini CLI's vim keys")
	mem := h.run("run", "-p", "/mem")
	mem.wantExit(t, exitInput)
	contains(t, "/mem's stderr", mem.stderr, "/mem is not a command; did you mean /memory?")
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("headless, the commands made %d model requests", n)
	}

	lsp := start(t, setup{profile: lsptest.Plugin()})
	if res := lsp.prompt(map[string]any{"prompt": "/vim"}); res.StopReason != "end_turn" || !strings.HasPrefix(res.Text, "/vim toggles") {
		t.Errorf("/vim over LSP answered %+v", res)
	}
	var rpcErr *jsonrpc2.Error
	err := lsp.client.Call(lsp.ctx, "gemini/prompt", map[string]any{"prompt": "/plna a flag"}, nil)
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "did you mean /plan?") {
		t.Errorf("/plna over LSP: %v", err)
	}
	if n := len(lsp.model.Requests()); n != 0 {
		t.Errorf("over LSP, the commands made %d model requests", n)
	}

	acp := startACP(t, acpSetup{})
	if got := acp.command("/vim"); !strings.HasPrefix(got, "/vim toggles") {
		t.Errorf("/vim over ACP said %q", got)
	}
	if got := acp.command("/mem"); !strings.Contains(got, "did you mean /memory?") {
		t.Errorf("/mem over ACP said %q", got)
	}
	if n := len(acp.model.Requests()); n != 0 {
		t.Errorf("over ACP, the commands made %d model requests", n)
	}
}
