package builtin_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// /extensions list names gemini-ls's install command when there is no
// extension, and shows each installed extension with its version,
// whether it is enabled, and what it contributes; a disabled one
// contributes nothing, and a broken one is named with why.
func TestExtensionsList(t *testing.T) {
	h := newHarness(t)
	if got := h.answer(h.conversation(), "/extensions list"); got != "No extensions installed: install one with `/extensions install <source>` or `/extensions link <path>` (or `gemini-ls extensions install`, the command line's); gemini-ls loads those in ~/.gemini/extensions, as Gemini CLI does." {
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
	h.write("~/.gemini/extensions/.gemini-extension-install.json", `stray: not an extension, no error`)
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

// /extensions disable and enable record the choice as Gemini CLI does and
// mark the build stale, so the front end loads the extensions again
// before the next prompt: the next build does not have the disabled one.
func TestExtensionsDisableEnable(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/extensions/helper/gemini-extension.json", `{"name": "helper", "version": "1.0.0"}`)
	h.write("~/.gemini/extensions/helper/GEMINI.md", "HELPER-CONTEXT")
	env := h.conversation()
	got := h.answer(env, "/extensions disable helper --scope=workspace")
	if !strings.Contains(got, `Extension "helper" disabled for the scope "Workspace".`) || !strings.Contains(got, "before its next prompt") || !env.Built.Stale() {
		t.Errorf("/extensions disable said %q (stale %v)", got, env.Built.Stale())
	}
	next := h.conversation()
	if got := h.answer(next, "/extensions"); !strings.Contains(got, "`helper` 1.0.0 — disabled here") {
		t.Errorf("after disable, /extensions said %q", got)
	}
	if mem, _ := next.Built.Memory().SystemMemory(context.Background()); strings.Contains(mem, "HELPER-CONTEXT") {
		t.Errorf("a disabled extension's context is in the memory:\n%s", mem)
	}
	if got := h.answer(next, "/extensions enable --all --scope workspace"); !next.Built.Stale() {
		t.Errorf("/extensions enable said %q and left the build fresh", got)
	}
	if got := h.answer(h.conversation(), "/extensions"); !strings.Contains(got, "`helper` 1.0.0 — enabled") {
		t.Errorf("after enable --all, /extensions said %q", got)
	}
	for line, want := range map[string]string{
		"/extensions disable":                        "name an extension, or --all",
		"/extensions disable nobody":                 "extension with name nobody does not exist",
		"/extensions disable helper --scope=session": `unsupported scope "session"`,
	} {
		if err := h.fails(env, line); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "usage: /extensions ") {
			t.Errorf("%s: %v, want %q and the usage", line, err, want)
		}
	}
}

// An enablement file that cannot be read enables every extension, and
// /extensions says why.
func TestExtensionsListUnreadableEnablement(t *testing.T) {
	h := newHarness(t)
	h.write("~/.gemini/extensions/one/gemini-extension.json", `{"name": "one", "version": "1"}`)
	h.write("~/.gemini/extensions/extension-enablement.json", `{"one": {"overrides": "not a list"}}`)
	got := h.answer(h.conversation(), "/extensions")
	if !strings.Contains(got, "`one` 1 — enabled") || !strings.Contains(got, "Problems:\n- reading ") || !strings.Contains(got, "so every extension is enabled") || strings.Contains(got, "Not loaded") {
		t.Errorf("/extensions said %q", got)
	}
}
