package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// antigravityMCP is an Antigravity mcp_config.json naming one server, the
// test MCP server, under name.
func antigravityMCP(t *testing.T, name string) string {
	t.Helper()
	return mustMarshal(t, map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": mcpServerBinary(t)}}})
}

// An Antigravity CLI user's setup reaches the model, headless in a
// trusted folder: the servers of ~/.gemini/config/mcp_config.json and of
// the root's .agents/mcp_config.json have their tools declared, and an
// always-on rule of .agents/rules is in the first request.
func TestAntigravitySetupReachesTheModel(t *testing.T) {
	const rule = "Antigravity rule: name branches feature/topic."
	h := newHeadless(t, map[string]string{
		".agents/rules/branches.md": "---\ntrigger: always_on\n---\n" + rule + "\n",
	}, geminitest.TextTurn("ok"))
	writeFiles(t, h.root, map[string]string{".agents/mcp_config.json": antigravityMCP(t, "agyproject")})
	writeFiles(t, envValue(h.env, "HOME"), map[string]string{".gemini/config/mcp_config.json": antigravityMCP(t, "agyuser")})

	h.run("run", "-p", "hi", "--approval-mode", "yolo").wantExit(t, 0)
	for _, tool := range []string{"mcp_agyuser_echo", "mcp_agyproject_echo"} {
		if !firstDeclares(h.model, tool) {
			t.Errorf("%s is not declared: %v", tool, declared(h.model.Requests(), 0))
		}
	}
	firstRequestHas(t, h.model, rule)
	if strings.Contains(string(h.model.Requests()[0].Body), "trigger: always_on") {
		t.Error("the rule's front matter was sent")
	}
}

// In an untrusted folder the root's Antigravity servers are not read,
// and /about says so and why; the user's are read (and, as every server
// of an untrusted folder, not started).
func TestAntigravityProjectServersOnlyInATrustedFolder(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/config/mcp_config.json": antigravityMCP(t, "agyuser")})
	h := startACP(t, acpSetup{home: home, files: map[string]string{".agents/mcp_config.json": antigravityMCP(t, "agyproject")}})
	about := h.command("/about")
	for _, want := range []string{
		h.path(".agents/mcp_config.json") + " (MCP servers): not read; not read: a workspace's MCP servers apply only in a trusted folder",
		filepath.Join(home, ".gemini", "config", "mcp_config.json") + " (MCP servers): read; server `agyuser`: read",
	} {
		if !strings.Contains(about, want) {
			t.Errorf("/about lacks %q:\n%s", want, about)
		}
	}
}
