package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// echoHiHistory is what Gemini CLI 0.61's shell mode adds to the
// conversation after `!echo hi` (addShellCommandToGeminiHistory).
const echoHiHistory = "I ran the following shell command:\n```sh\necho hi\n```\n\nThis produced the following result:\n```\nhi\n```"

// hasUserText reports whether contents hold a user turn whose text is want.
func hasUserText(contents []*genai.Content, want string) bool {
	for _, c := range withoutSessionContext(contents) {
		if c.Role == genai.RoleUser && len(c.Parts) == 1 && c.Parts[0].Text == want {
			return true
		}
	}
	return false
}

// A prompt "!echo hi" over ACP runs echo hi once the user allows it, as a
// run_shell_command call of it is asked about, shows its output, and asks
// the model nothing; the next prompt's request carries the command and
// its output in 0.61's words, before the prompt. It is a prompt of the
// conversation: a rewind to the prompt after it keeps it.
func TestShellModeOverACP(t *testing.T) {
	h := startACP(t, acpSetup{env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, cfg: acptest.Config{
		Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.AllowOnce },
	}}, geminitest.TextTurn("It said hi."), geminitest.TextTurn("Still hi."))
	h.mustPrompt("!echo hi", sdk.StopReasonEndTurn)
	if n := len(h.model.Requests()); n != 0 {
		t.Fatalf("%d model requests for the ! prompt, want none", n)
	}
	if perms := h.client.Permissions(); len(perms) != 1 || perms[0].ToolCall.Title == nil || *perms[0].ToolCall.Title != "echo hi" {
		t.Errorf("permission requests %+v, want one about echo hi", perms)
	}
	if msg := h.client.MessageText(h.session); msg != "```\nhi\n```" {
		t.Errorf("the user was shown %q, want the command's output", msg)
	}
	h.mustPrompt("What did it print?", sdk.StopReasonEndTurn)
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if !hasUserText(reqs[0].Contents, echoHiHistory) {
		t.Errorf("the next request's history %v lacks %q", contentsText(reqs[0].Contents), echoHiHistory)
	}
	if got := lastUserText(t, reqs, 0); got != "What did it print?" {
		t.Errorf("the request ends with %q, want the prompt", got)
	}

	h.mustPrompt("/rewind 2 conversation", sdk.StopReasonEndTurn)
	h.mustPrompt("And now?", sdk.StopReasonEndTurn)
	reqs = h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := contentsText(reqs[1].Contents); len(got) != 2 || got[0] != "user: "+echoHiHistory || got[1] != "user: And now?" {
		t.Errorf("after the rewind to prompt 2, the request's history is %q, want the command's result and the new prompt", got)
	}
}

// Headless, `run -p "!echo hi"` in yolo prints the command's output and
// asks the model nothing; the session resumed carries it to the model.
func TestShellModeHeadless(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("It said hi."))
	res := h.run("run", "--approval-mode", "yolo", "-p", "!echo hi")
	res.wantExit(t, 0)
	if res.stdout != "```\nhi\n```\n" {
		t.Errorf("stdout %q, want the command's output", res.stdout)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Fatalf("%d model requests for the ! prompt, want none", n)
	}
	h.run("run", "--resume", "latest", "-p", "What did it print?").wantExit(t, 0)
	reqs := h.model.Requests()
	if len(reqs) != 1 || !hasUserText(reqs[0].Contents, echoHiHistory) {
		t.Errorf("the resumed session's request %v lacks %q", contentsText(reqs[0].Contents), echoHiHistory)
	}
}

// A policy denying rm refuses "!rm …" even in yolo, before anything runs,
// and says so; the model is asked nothing.
func TestShellModePolicyDeny(t *testing.T) {
	h := newHeadless(t, map[string]string{"victim.txt": "keep\n"}, geminitest.TextTurn("not asked"))
	home := h.homeOf()
	writeFiles(t, filepath.Join(home, ".gemini", "policies"), map[string]string{"policies.toml": userPolicies})
	res := h.run("run", "--approval-mode", "yolo", "-p", "!rm -f victim.txt")
	res.wantExit(t, exitInput)
	if !h.exists("victim.txt") {
		t.Error("the denied rm ran")
	}
	if want := `gemini-ls: the shell command was not run: "rm -f victim.txt": ` + deniedByPolicy + "\n"; res.stderr != want {
		t.Errorf("stderr %q, want %q", res.stderr, want)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// contentsText is contents' text, for a failure message.
func contentsText(contents []*genai.Content) []string {
	var out []string
	for _, c := range withoutSessionContext(contents) {
		var b strings.Builder
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
		out = append(out, c.Role+": "+b.String())
	}
	return out
}

// Over LSP, "!echo hi" is asked about with gemini/confirm and answers its
// output with no model request; "!rm …" a policy denies is refused with
// the policy's reason, and nothing runs.
func TestShellModeOverLSP(t *testing.T) {
	_, env := policyHome(t, map[string]string{"policies.toml": userPolicies})
	h := start(t, setup{profile: lsptest.Plugin(), env: append(env, "GEMINI_CLI_TRUST_WORKSPACE=true"), files: map[string]string{"victim.txt": "keep\n"}},
		geminitest.TextTurn("not asked"), geminitest.TextTurn("not asked either"))
	var confirms atomic.Int32
	h.client.OnConfirm = func(context.Context, json.RawMessage) string { confirms.Add(1); return "proceed_once" }
	if res := h.prompt(map[string]any{"prompt": "!echo hi"}); res.StopReason != "end_turn" || res.Text != "```\nhi\n```" {
		t.Errorf("!echo hi answered %+v, want its output", res)
	}
	if n := confirms.Load(); n != 1 {
		t.Errorf("%d confirmations, want 1", n)
	}
	var res promptResult
	err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "!rm -f victim.txt"}, &res)
	if err == nil || !strings.Contains(err.Error(), deniedByPolicy) {
		t.Errorf("!rm answered %+v, %v; want the policy's refusal", res, err)
	}
	if _, err := os.Stat(h.path("victim.txt")); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}
