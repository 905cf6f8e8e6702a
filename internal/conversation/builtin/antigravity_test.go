package builtin_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// /about lists each Antigravity CLI file found, what was read of it and
// what was not, and why.
func TestAboutListsAntigravityFiles(t *testing.T) {
	h := newHarness(t)
	mcp := h.write("~/.gemini/config/mcp_config.json", `{"mcpServers": {"docs": {"command": "docs-mcp"}, "off": {"command": "x", "disabled": true}}}`)
	h.write(".agents/rules/style.md", "---\ntrigger: always_on\n---\nUse tabs.\n")
	h.write(".agents/rules/db.md", "---\ntrigger: manual\n---\nAct as a DBA.\n")
	h.write(".agents/hooks.json", `{"audit": {"Stop": [{"command": "make lint"}]}}`)
	got := h.answer(h.conversation(), "/about")
	for _, want := range []string{
		"- Antigravity CLI's files:",
		"  - " + mcp + " (MCP servers): read; server `docs`: read; server `off`: not read: \"disabled\": true",
		"  - " + filepath.Join(h.root, ".agents", "rules", "style.md") + " (rule): read as context",
		"  - " + filepath.Join(h.root, ".agents", "rules", "db.md") + " (rule): not read: trigger manual: Antigravity applies it only when the user mentions it",
		"  - " + filepath.Join(h.root, ".agents", "hooks.json") + " (hooks): not read: Antigravity's hook contract",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/about lacks %q:\n%s", want, got)
		}
	}
}

// Without Antigravity files /about says nothing of them.
func TestAboutWithoutAntigravityFiles(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/about"); strings.Contains(got, "Antigravity") {
		t.Errorf("/about names Antigravity:\n%s", got)
	}
}
