package e2e

import (
	"bytes"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// agentsRule is the text of a repository's only context file, AGENTS.md.
const agentsRule = "Agents rule: run make check before every commit."

// firstRequestHas fails unless the model's first request holds text,
// anywhere in it: the system instruction or the first message, wherever
// the memory is placed.
func firstRequestHas(t *testing.T, model *geminitest.Server, text string) {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	if !bytes.Contains(reqs[0].Body, []byte(text)) {
		t.Errorf("the first request lacks %q:\n%s", text, reqs[0].Body)
	}
}

// A repository whose only context file is AGENTS.md gives the model its
// text, headless (Gemini CLI 0.61 reads GEMINI.md alone by default).
func TestAgentsMdReachesTheModelHeadless(t *testing.T) {
	h := newHeadless(t, map[string]string{"AGENTS.md": agentsRule + "\n"}, geminitest.TextTurn("ok"))
	h.run("run", "-p", "hi").wantExit(t, 0)
	firstRequestHas(t, h.model, agentsRule)
}

// The same through the language server.
func TestAgentsMdReachesTheModelLSP(t *testing.T) {
	h := start(t, setup{
		profile: lsptest.Plugin(),
		env:     []string{"GEMINI_CLI_TRUST_WORKSPACE=true"},
		files:   map[string]string{"AGENTS.md": agentsRule + "\n"},
	}, geminitest.TextTurn("ok"))
	if res := h.prompt(map[string]any{"prompt": "hi"}); res.StopReason != "end_turn" {
		t.Fatalf("prompt: %+v", res)
	}
	firstRequestHas(t, h.model, agentsRule)
}

// The same through ACP.
func TestAgentsMdReachesTheModelACP(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{"AGENTS.md": agentsRule + "\n"}, env: trustTheWorkspace()}, geminitest.TextTurn("ok"))
	h.mustPrompt("hi", sdk.StopReasonEndTurn)
	firstRequestHas(t, h.model, agentsRule)
}

// A folder holding both files gives the model both, once each, GEMINI.md
// first.
func TestGeminiMdAndAgentsMdReadOnceEach(t *testing.T) {
	const geminiRule = "Gemini rule: indent with tabs."
	h := newHeadless(t, map[string]string{"GEMINI.md": geminiRule + "\n", "AGENTS.md": agentsRule + "\n"}, geminitest.TextTurn("ok"))
	h.run("run", "-p", "hi").wantExit(t, 0)
	body := string(h.model.Requests()[0].Body)
	for _, text := range []string{geminiRule, agentsRule} {
		if n := strings.Count(body, text); n != 1 {
			t.Errorf("%q is in the first request %d times, want once:\n%s", text, n, body)
		}
	}
	if strings.Index(body, geminiRule) > strings.Index(body, agentsRule) {
		t.Errorf("AGENTS.md came before GEMINI.md:\n%s", body)
	}
}
