package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The folder trust question, as Gemini CLI 0.61 asks it on its first run
// in a folder no rule of trustedFolders.json decides: the workspace below
// names an MCP server in its .gemini/settings.json, which runs only once
// the folder is trusted.

const serverTool = "mcp_tester_echo"

// trustCase is a workspace naming the test MCP server, and a home of its
// own with no trustedFolders.json.
type trustCase struct {
	home, root string
}

func newTrustCase(t *testing.T) trustCase {
	t.Helper()
	return trustCase{home: t.TempDir(), root: newRoot(t, map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}}),
	})}
}

// trustedFolders is the home's trustedFolders.json, "" when there is none.
func trustedFolders(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "trustedFolders.json"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// asGeminiCLIWrites checks home's trustedFolders.json against the one
// Gemini CLI 0.61 writes in a home of its own for the same answer, byte
// for byte, with its mode.
func asGeminiCLIWrites(t *testing.T, home, folder, level string) {
	t.Helper()
	theirs := t.TempDir()
	geminicli.SetFolderTrust(t, theirs, folder, level)
	if got, want := trustedFolders(t, home), trustedFolders(t, theirs); got != want {
		t.Fatalf("trustedFolders.json:\n%s\nGemini CLI 0.61 writes:\n%s", got, want)
	}
	ours, _ := os.Stat(filepath.Join(home, ".gemini", "trustedFolders.json"))
	their, _ := os.Stat(filepath.Join(theirs, ".gemini", "trustedFolders.json"))
	if ours.Mode() != their.Mode() {
		t.Errorf("trustedFolders.json's mode %v, Gemini CLI's %v", ours.Mode(), their.Mode())
	}
}

// trustAnswers records the trust questions a scripted editor is asked,
// and answers each with answer.
type trustAnswers struct {
	mu     sync.Mutex
	asked  []string
	answer string
}

func (a *trustAnswers) ask(message string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, message)
	return a.answer
}

func (a *trustAnswers) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// startTrusting is a stock editor (VS Code's language client, no plugin)
// on c's workspace, answering the trust question with answer.
func startTrusting(t *testing.T, c trustCase, answer string, turns ...geminitest.Turn) (*harness, *trustAnswers) {
	t.Helper()
	return startTrustingWith(t, c, nil, answer, turns...)
}

// startTrustingWith is startTrusting with initializationOptions opts.
func startTrustingWith(t *testing.T, c trustCase, opts map[string]any, answer string, turns ...geminitest.Turn) (*harness, *trustAnswers) {
	t.Helper()
	h := start(t, setup{profile: lsptest.VSCode(), root: c.root, opts: opts, env: []string{"HOME=" + c.home}}, turns...)
	a := &trustAnswers{answer: answer}
	h.client.OnTrust = a.ask
	return h, a
}

// "Trust folder": the first prompt asks, once, with exactly Gemini CLI's
// three answers; the answer is written as Gemini CLI writes it, and from
// then on, in the same session and without a restart, the project's MCP
// server runs and the model is offered its tools.
func TestTrustFolderFromAStockEditor(t *testing.T) {
	c := newTrustCase(t)
	h, a := startTrusting(t, c, "Trust folder", geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	var actions []string
	h.client.OnShowMessageRequest = func(_ string, titles []string) string {
		actions = titles
		return ""
	}
	first, _ := h.command("first")
	if a.count() != 1 || !strings.Contains(a.asked[0], "Do you trust the files in this folder?") || !strings.Contains(a.asked[0], c.root) {
		t.Fatalf("asked %q, want the trust question about %s once", a.asked, c.root)
	}
	if actions != nil {
		t.Errorf("another question was put besides the trust question: %q", actions)
	}
	if q := h.client.Messages(lsptest.TrustQuestion); len(q) != 1 {
		t.Errorf("%d trust questions on the wire, want 1", len(q))
	} else {
		// window/showMessageRequest, its actions exactly Gemini CLI's answers.
		contains(t, "the question's actions", string(q[0].Params), `"actions":[{"title":"Trust folder"},{"title":"Trust parent folder"},{"title":"Don't trust"}]`)
	}
	asGeminiCLIWrites(t, c.home, c.root, "TRUST_FOLDER")

	second, _ := h.command("second")
	if second.SessionID != first.SessionID {
		t.Errorf("the second prompt ran in session %s, the first in %s", second.SessionID, first.SessionID)
	}
	if a.count() != 1 {
		t.Errorf("asked %d times, want once", a.count())
	}
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for i := range reqs {
		if !slices.Contains(declared(reqs, i), serverTool) {
			t.Errorf("request %d does not offer the project's MCP tool %s: %v", i, serverTool, declared(reqs, i))
		}
	}
	if n := len(reqs[1].Contents); n < 3 {
		t.Errorf("the second request carries %d contents, want the first prompt's exchange before it", n)
	}
}

// "Don't trust" is recorded as Gemini CLI records it, is not asked again,
// not even by a second session in the same folder, and the session goes
// on untrusted: the project's MCP server never runs.
func TestDontTrustFromAStockEditor(t *testing.T) {
	c := newTrustCase(t)
	h, a := startTrusting(t, c, "Don't trust", geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	h.command("first")
	h.command("second")
	if a.count() != 1 {
		t.Fatalf("asked %d times, want once", a.count())
	}
	asGeminiCLIWrites(t, c.home, c.root, "DO_NOT_TRUST")
	reqs := h.model.Requests()
	for i := range reqs {
		if slices.Contains(declared(reqs, i), serverTool) {
			t.Errorf("request %d offers the untrusted project's MCP tool", i)
		}
	}

	again, asked := startTrusting(t, c, "Trust folder", geminitest.TextTurn("three"))
	again.command("third")
	if asked.count() != 0 {
		t.Errorf("a second session in the folder asked again: %q", asked.asked)
	}
	if slices.Contains(declared(again.model.Requests(), 0), serverTool) {
		t.Error("the second session offers the untrusted project's MCP tool")
	}
}

// Dismissing the question records nothing, and the prompt goes on
// untrusted; the session does not ask again.
func TestDismissedTrustQuestion(t *testing.T) {
	c := newTrustCase(t)
	h, a := startTrusting(t, c, "", geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	_, answer := h.command("first")
	contains(t, "the answer", answer, "one")
	_, answer = h.command("second")
	contains(t, "the answer", answer, "two")
	if a.count() != 1 {
		t.Fatalf("asked %d times, want once", a.count())
	}
	if got := trustedFolders(t, c.home); got != "" {
		t.Errorf("a dismissed question recorded %q", got)
	}
	for i := range h.model.Requests() {
		if slices.Contains(declared(h.model.Requests(), i), serverTool) {
			t.Errorf("request %d offers the untrusted project's MCP tool", i)
		}
	}
}

// /permissions trust, from our plugins (gemini/ask), puts the same
// question about the folder named, is not preceded by the first
// prompt's, records the answer, and the next prompt runs trusted. /help
// lists it.
func TestPermissionsTrust(t *testing.T) {
	c := newTrustCase(t)
	h := start(t, setup{profile: lsptest.Plugin(), root: c.root, env: []string{"HOME=" + c.home}}, geminitest.TextTurn("trusted now"))
	var asked []string
	h.client.OnTrust = func(message string) string {
		asked = append(asked, message)
		return "Trust parent folder"
	}
	help := h.prompt(map[string]any{"prompt": "/permissions trust " + c.root})
	if len(asked) != 1 || !strings.Contains(asked[0], c.root) {
		t.Fatalf("asked %q, want the trust question about %s once", asked, c.root)
	}
	contains(t, "the reply", help.Text, "Trust level: TRUST_PARENT")
	contains(t, "the reply", help.Text, "applies from the next prompt")
	asGeminiCLIWrites(t, c.home, c.root, "TRUST_PARENT")
	// Each answer comes with what it does, and the text says what
	// declining does: our plugins show Decline beside Don't trust.
	if q := h.client.Messages(lsptest.TrustQuestion); len(q) != 1 {
		t.Errorf("%d trust questions on the wire, want 1", len(q))
	} else {
		contains(t, "gemini/ask", string(q[0].Params), `"label":"Don't trust","description":"Restricted mode: none of this folder's configuration is used; remembered, so you are not asked again"`)
		contains(t, "gemini/ask", string(q[0].Params), "Declining, or closing the question, answers nothing and remembers nothing")
	}

	res := h.prompt(map[string]any{"prompt": "hi", "sessionId": help.SessionID})
	if res.Text != "trusted now" || len(asked) != 1 {
		t.Fatalf("the next prompt = %+v, asked %d times", res, len(asked))
	}
	if !slices.Contains(declared(h.model.Requests(), 0), serverTool) {
		t.Errorf("the next prompt does not offer the project's MCP tool: %v", declared(h.model.Requests(), 0))
	}
	list := h.prompt(map[string]any{"prompt": "/help"})
	contains(t, "/help", list.Text, "/permissions")
}

// Over ACP the first prompt of an untrusted session asks through
// session/request_permission, with the same three answers; "Trust folder"
// is recorded as Gemini CLI records it and that very prompt, and the
// next, are offered the project's MCP tools.
func TestTrustQuestionOverACP(t *testing.T) {
	home := t.TempDir()
	h := startACP(t, acpSetup{home: home, files: map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}}),
	}, cfg: acptest.Config{
		Trust: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.TrustFolder },
	}}, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	h.mustPrompt("first", sdk.StopReasonEndTurn)
	h.mustPrompt("second", sdk.StopReasonEndTurn)
	asked := h.client.TrustRequests()
	if len(asked) != 1 {
		t.Fatalf("%d trust questions, want 1", len(asked))
	}
	var names []string
	for _, o := range asked[0].Options {
		names = append(names, o.Name)
	}
	if strings.Join(names, "|") != "Trust folder|Trust parent folder|Don't trust" {
		t.Errorf("options %q", names)
	}
	asGeminiCLIWrites(t, home, h.root, "TRUST_FOLDER")
	reqs := h.model.Requests()
	for i := range reqs {
		if !slices.Contains(declared(reqs, i), serverTool) {
			t.Errorf("request %d does not offer the project's MCP tool: %v", i, declared(reqs, i))
		}
	}
}
