package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// disabledFile is mcp-server-enablement.json with tester disabled, as
// Gemini CLI 0.61 writes it (JSON.stringify(config, null, 2)).
const disabledFile = "{\n  \"tester\": {\n    \"enabled\": false\n  }\n}"

// enablementFile is what home's mcp-server-enablement.json holds, "" when
// there is none.
func enablementFile(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "mcp-server-enablement.json"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Headless, `/mcp disable tester` and `/mcp enable tester` are refused
// (issue 62: text from a pipe or -p never changes the MCP servers) and
// write nothing; `gemini-ls mcp disable` and `enable`, typed on the
// command line, write the enablement file as 0.61 does, in 0.61's words,
// and the next run does not start tester nor offer its tools, then does.
// tester is trusted: headless, only tools something lets run are offered.
func TestMCPDisableAndEnableHeadless(t *testing.T) {
	bin := mcpServerBinary(t)
	h := newHeadless(t, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": bin, "trust": true}})},
		geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	home := homeOf(t, h.env)

	for _, line := range []string{"/mcp disable tester", "/mcp enable tester", "/mcp disable tester --session"} {
		res := h.runIn(h.root, h.env, "run", "-p", line)
		res.wantExit(t, exitInput)
		if !strings.Contains(res.stderr, "it changes the MCP servers, so it runs only where a person types it") {
			t.Errorf("%s said:\n%s\n%s", line, res.stdout, res.stderr)
		}
	}
	if got := enablementFile(t, home); got != "" {
		t.Errorf("refused commands wrote the enablement file: %q", got)
	}
	h.runIn(h.root, h.env, "run", "-p", "hi").wantExit(t, 0)
	if d := declared(h.model.Requests(), 0); !slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("after refused commands, the request declared %v", d)
	}

	res := h.runIn(h.root, h.env, "mcp", "disable", "Tester")
	res.wantExit(t, 0)
	if !strings.Contains(res.stderr, "\u2713 MCP server 'tester' disabled.") || enablementFile(t, home) != disabledFile {
		t.Errorf("gemini-ls mcp disable said %q; the file is %q", res.stderr, enablementFile(t, home))
	}
	h.runIn(h.root, h.env, "run", "-p", "hi").wantExit(t, 0)
	if d := declared(h.model.Requests(), 1); slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("after gemini-ls mcp disable, the request declared %v", d)
	}
	res = h.runIn(h.root, h.env, "mcp", "list")
	if !strings.Contains(res.stderr, "\u25cb tester: "+bin+"  (stdio) - Disabled") {
		t.Errorf("mcp list said:\n%s", res.stderr)
	}
	res = h.runIn(h.root, h.env, "mcp", "enable", "tester")
	if !strings.Contains(res.stderr, "\u2713 MCP server 'tester' enabled.") || enablementFile(t, home) != "{}" {
		t.Errorf("gemini-ls mcp enable said %q; the file is %q", res.stderr, enablementFile(t, home))
	}
	h.runIn(h.root, h.env, "run", "-p", "hi").wantExit(t, 0)
	if d := declared(h.model.Requests(), 2); !slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("after gemini-ls mcp enable, the request declared %v", d)
	}
	res = h.runIn(h.root, h.env, "mcp", "disable", "nobody")
	if !strings.Contains(res.stderr, "Error: Server 'nobody' not found.") {
		t.Errorf("gemini-ls mcp disable nobody said %q", res.stderr)
	}
}

// Headless: a server that changes its tools during a call, and says so,
// has them listed again before the call's answer reaches the model, whose
// next request offers the new tool.
func TestMCPToolListChangedHeadless(t *testing.T) {
	bin := mcpServerBinary(t)
	h := newHeadless(t, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"tester": map[string]any{"command": bin, "args": []string{"-grow"}, "trust": true},
	})}, call("mcp_tester_grow", nil), call("mcp_tester_grown", nil), geminitest.TextTurn("done"))
	h.runIn(h.root, h.env, "run", "-p", "grow").wantExit(t, 0)
	reqs := h.model.Requests()
	if slices.Contains(declared(reqs, 0), "mcp_tester_grown") || !slices.Contains(declared(reqs, 1), "mcp_tester_grown") {
		t.Errorf("declared: first %v, after grow %v; want grown offered after grow", declared(reqs, 0), declared(reqs, 1))
	}
	if got := responseOutput(h.responses(2)[0]); got != "grown here" {
		t.Errorf("the new tool answered %q", got)
	}
}

// Through the editor, in one session: /mcp disable removes tester's
// tools from the next request and writes the enablement file, /mcp
// enable brings them back, and /mcp reload connects a server added to
// settings.json meanwhile.
func TestMCPReloadEnableDisableThroughTheEditor(t *testing.T) {
	bin := mcpServerBinary(t)
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), env: append(trustTheWorkspace(), "HOME="+home), files: map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": bin}}),
	}}, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	h.waitLog("MCP server ready")
	if res := h.prompt(map[string]any{"prompt": "/mcp disable tester"}); res.Text != "MCP server 'tester' disabled." {
		t.Errorf("/mcp disable said %+v", res)
	}
	if got := enablementFile(t, home); got != disabledFile {
		t.Errorf("the enablement file is %q, want %q", got, disabledFile)
	}
	h.prompt(map[string]any{"prompt": "hi"})
	if d := declared(h.model.Requests(), 0); slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("with tester disabled, the request declared %v", d)
	}
	if res := h.prompt(map[string]any{"prompt": "/mcp enable tester"}); res.Text != "MCP server 'tester' enabled." {
		t.Errorf("/mcp enable said %+v", res)
	}
	h.prompt(map[string]any{"prompt": "hi"})
	if d := declared(h.model.Requests(), 1); !slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("with tester enabled, the request declared %v", d)
	}
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"tester": map[string]any{"command": bin},
		"added":  map[string]any{"command": bin, "args": []string{"-extra", "fresh"}},
	})})
	res := h.prompt(map[string]any{"prompt": "/mcp reload"})
	if !strings.HasPrefix(res.Text, "Reloading MCP servers...") || !strings.Contains(res.Text, "`added`: ready") {
		t.Errorf("/mcp reload said %+v", res)
	}
	h.prompt(map[string]any{"prompt": "hi"})
	if d := declared(h.model.Requests(), 2); !slices.Contains(d, "mcp_added_fresh") || !slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("after /mcp reload, the request declared %v", d)
	}
}

// Over ACP, in one session: the same, and --session disables a server
// for the session alone, writing nothing.
func TestMCPReloadEnableDisableOverACP(t *testing.T) {
	bin := mcpServerBinary(t)
	h := startACP(t, acpSetup{env: trustTheWorkspace(), files: map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": bin}}),
	}}, geminitest.TextTurn("one"), geminitest.TextTurn("two"), geminitest.TextTurn("three"))
	home := homeOf(t, h.env)
	said := func(prompt string) string {
		before := len(h.client.MessageText(h.session))
		h.mustPrompt(prompt, sdk.StopReasonEndTurn)
		return h.client.MessageText(h.session)[before:]
	}
	if got := said("/mcp disable tester --session"); !strings.Contains(got, "MCP server 'tester' disabled for this session.") {
		t.Errorf("/mcp disable --session said %q", got)
	}
	if got := enablementFile(t, home); got != "" {
		t.Errorf("a session's disable wrote %q", got)
	}
	if got := said("/mcp"); !strings.Contains(got, "`tester`: disabled (session)") {
		t.Errorf("/mcp said %q", got)
	}
	said("hi")
	if d := declared(h.model.Requests(), 0); slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("with tester disabled, the request declared %v", d)
	}
	if got := said("/mcp enable tester --session"); !strings.Contains(got, "MCP server 'tester' enabled for this session.") {
		t.Errorf("/mcp enable --session said %q", got)
	}
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"tester": map[string]any{"command": bin},
		"added":  map[string]any{"command": bin, "args": []string{"-extra", "fresh"}},
	})})
	if got := said("/mcp refresh"); !strings.Contains(got, "`added`: ready") {
		t.Errorf("/mcp refresh said %q", got)
	}
	said("hi")
	if d := declared(h.model.Requests(), 1); !slices.Contains(d, "mcp_added_fresh") || !slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("after /mcp refresh, the request declared %v", d)
	}
	if got := said("/mcp disable added"); !strings.Contains(got, "MCP server 'added' disabled.") {
		t.Errorf("/mcp disable said %q", got)
	}
	if got := enablementFile(t, home); got != "{\n  \"added\": {\n    \"enabled\": false\n  }\n}" {
		t.Errorf("the enablement file is %q", got)
	}
	said("hi")
	if d := declared(h.model.Requests(), 2); slices.Contains(d, "mcp_added_fresh") || !slices.Contains(d, "mcp_tester_echo") {
		t.Errorf("with added disabled, the request declared %v", d)
	}
}
