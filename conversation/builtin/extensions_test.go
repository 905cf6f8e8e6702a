package builtin_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// /extensions list shows each installed extension with its version,
// whether it is enabled, and what it contributes; a disabled one
// contributes nothing, and a broken one is named with why.
func TestExtensionsList(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/extensions list"); !strings.HasPrefix(got, "No extensions installed") {
		t.Errorf("without extensions: %q", got)
	}
	h.write("~/.gemini/extensions/tools-ext/gemini-extension.json", `{"name": "tools-ext", "version": "1.4.0", "description": "Handy tools",
		"mcpServers": {"helper": {"command": "${extensionPath}/helper"}}, "excludeTools": ["web_fetch"],
		"settings": [{"name": "Token", "envVar": "TOOLS_TOKEN"}]}`)
	h.write("~/.gemini/extensions/tools-ext/GEMINI.md", "Use the helper.")
	h.write("~/.gemini/extensions/tools-ext/commands/help.toml", `prompt = "the extension's help"`)
	h.write("~/.gemini/extensions/tools-ext/commands/fix.toml", `prompt = "fix it"`)
	h.write("~/.gemini/extensions/tools-ext/skills/audit/SKILL.md", "---\nname: audit\n---\n")
	h.write("~/.gemini/extensions/quiet/gemini-extension.json", `{"name": "quiet", "version": "0.1.0", "mcpServers": {"q": {"command": "q"}}}`)
	h.write("~/.gemini/extensions/extension-enablement.json", `{"quiet": {"overrides": ["!/*"]}}`)
	h.write("~/.gemini/extensions/broken/gemini-extension.json", `{"name": "broken"`)

	got := h.answer(h.conversation(), "/extensions")
	for _, want := range []string{
		"Installed extensions (2):",
		"- `quiet` 0.1.0 — disabled here",
		"- `tools-ext` 1.4.0 — enabled",
		"Handy tools",
		"MCP servers: `helper`",
		"/tools-ext.help", // a built-in keeps /help
		"/fix",
		"Excluded tools: `web_fetch`",
		"Context files: " + filepath.Join(h.home, ".gemini", "extensions", "tools-ext", "GEMINI.md"),
		"skills (",
		"Setting Token (TOOLS_TOKEN): not set",
		"Not loaded:\n- extension broken (",
		"not valid JSON",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/extensions lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "`q`") {
		t.Errorf("a disabled extension's server is listed:\n%s", got)
	}
	if err := h.fails(h.conversation(), "/extensions list more"); !strings.Contains(err.Error(), "usage: /extensions list") {
		t.Errorf("/extensions list more: %v", err)
	}
}
