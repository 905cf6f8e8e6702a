package e2e

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The built-ins answer over LSP without a model request, from
// gemini/prompt and from a stock client's gemini.prompt; a checkpoint
// saved with /chat save in one server process is resumed with /chat
// resume in the next, and the model then sees the saved conversation.
func TestBuiltinsOverLSPAcrossProcesses(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	first := start(t, setup{profile: lsptest.Plugin(), env: env}, geminitest.TextTurn("noted: 42"))
	said := first.prompt(map[string]any{"prompt": "remember 42"})
	for _, c := range []struct{ prompt, want string }{
		{"/help", "/chat"},
		{"/about", "gemini-ls"},
		{"/stats", "Prompts"},
		{"/chat save before-lunch", "Conversation checkpoint saved with tag: before-lunch."},
	} {
		res := first.prompt(map[string]any{"prompt": c.prompt, "sessionId": said.SessionID})
		if res.StopReason != "end_turn" || !strings.Contains(res.Text, c.want) || res.SessionID != said.SessionID {
			t.Errorf("%s answered %+v, want a text with %q", c.prompt, res, c.want)
		}
	}
	// A usage error is the request's error, and nothing is asked of the model.
	var rpcErr *jsonrpc2.Error
	err := first.client.Call(first.ctx, "gemini/prompt", map[string]any{"prompt": "/chat resume no-such-tag"}, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32803 || !strings.Contains(rpcErr.Message, "no-such-tag") {
		t.Errorf("/chat resume of a tag never saved: %v", err)
	}
	if n := len(first.model.Requests()); n != 1 {
		t.Errorf("the built-ins made %d model requests after the prompt's one", n-1)
	}
	if err := first.proc.Close(); err != nil {
		t.Fatal(err)
	}

	second := start(t, setup{profile: lsptest.Plugin(), env: env, root: first.root}, geminitest.TextTurn("it was 42"))
	if list := second.prompt(map[string]any{"prompt": "/chat list"}); !strings.Contains(list.Text, "before-lunch") {
		t.Errorf("/chat list in a new process: %+v", list)
	}
	resumed := second.prompt(map[string]any{"prompt": "/chat resume before-lunch"})
	if !strings.Contains(resumed.Text, "Resumed the conversation saved as before-lunch") {
		t.Fatalf("/chat resume: %+v", resumed)
	}
	if n := len(second.model.Requests()); n != 0 {
		t.Fatalf("/chat list and resume made %d model requests", n)
	}
	next := second.prompt(map[string]any{"prompt": "what was it?", "sessionId": resumed.SessionID})
	if next.Text != "it was 42" {
		t.Fatalf("the prompt after resuming: %+v", next)
	}
	got := contentTexts(second.model.Requests()[0].Contents)
	want := []string{"user: remember 42", "model: noted: 42", "user: what was it?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the request after /chat resume holds %q, want %q", got, want)
	}
}

// A stock client runs the built-ins through gemini.prompt: the answer is
// its message, and no model request is made.
func TestBuiltinsThroughGeminiPrompt(t *testing.T) {
	h := start(t, setup{profile: lsptest.Eglot()})
	if _, msg := h.command(map[string]any{"prompt": "/tools"}); !strings.Contains(msg, "read_file") {
		t.Errorf("gemini.prompt /tools showed %q", msg)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("/tools made %d model requests", n)
	}
}

// Headless runs the built-ins too: `run -p "/help"` prints the commands
// without a model request, and /chat save and /chat resume carry a
// conversation from one run to another.
func TestBuiltinsHeadlessAcrossProcesses(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("noted: 42"), geminitest.TextTurn("it was 42"))
	h.env = append(h.env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	help := h.run("run", "-p", "/help")
	help.wantExit(t, 0)
	if !strings.Contains(help.stdout, "/chat") || !strings.Contains(help.stdout, "/memory") {
		t.Errorf("/help printed %q", help.stdout)
	}
	h.run("run", "-p", "remember 42").wantExit(t, 0)
	save := h.run("run", "-resume", "latest", "-p", "/chat save t1")
	save.wantExit(t, 0)
	if !strings.Contains(save.stdout, "saved with tag: t1") {
		t.Errorf("/chat save printed %q, %q", save.stdout, save.stderr)
	}
	resume := h.run("run", "-p", "/chat resume t1")
	resume.wantExit(t, 0)
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d model requests; the built-ins made some", n)
	}
	bad := h.run("run", "-p", "/chat resume nope")
	bad.wantExit(t, exitInput)
	if !strings.Contains(bad.stderr, "nope") {
		t.Errorf("/chat resume nope: stderr %q", bad.stderr)
	}
	h.run("run", "-resume", "latest", "-p", "what was it?").wantExit(t, 0)
	got := contentTexts(h.model.Requests()[1].Contents)
	want := []string{"user: remember 42", "model: noted: 42", "user: what was it?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the run after /chat resume sent %q, want %q", got, want)
	}
}

// A built-in's other name runs it headless and over LSP without a model
// request: `run -p "/usage"` prints /stats; /exit is not run, as Gemini
// CLI 0.61's non-interactive mode refuses /quit (exit 42), saying how a
// conversation ends here; over LSP /bg answers as /tasks.
func TestOtherNamesHeadlessAndOverLSP(t *testing.T) {
	h := newHeadless(t, nil)
	usage := h.run("run", "-p", "/usage")
	usage.wantExit(t, 0)
	if !strings.Contains(usage.stdout, "- Prompts: 0") {
		t.Errorf("/usage printed %q, %q", usage.stdout, usage.stderr)
	}
	exit := h.run("run", "-p", "/exit")
	exit.wantExit(t, exitInput)
	if !strings.Contains(exit.stderr, "there is no terminal to exit here") {
		t.Errorf("/exit: stderr %q", exit.stderr)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("headless, the commands made %d model requests", n)
	}

	lsp := start(t, setup{profile: lsptest.Plugin()})
	if res := lsp.prompt(map[string]any{"prompt": "/bg"}); res.StopReason != "end_turn" || res.Text != "No background processes found." {
		t.Errorf("/bg over LSP answered %+v", res)
	}
	if n := len(lsp.model.Requests()); n != 0 {
		t.Errorf("over LSP, /bg made %d model requests", n)
	}
}
