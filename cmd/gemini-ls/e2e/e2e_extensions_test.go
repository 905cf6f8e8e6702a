package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// installExtensions is a HOME where Gemini CLI has installed extensions
// as `gemini extensions install` and `link` leave them:
//   - copied: a copy in ~/.gemini/extensions/copied, with its install
//     metadata, its own MCP server binary (run as
//     ${extensionPath}${/}bin${/}mcpserver, offering ext_tool), a GEMINI.md,
//     a /welcome command, and excludeTools glob;
//   - linked: only install metadata linking to a developer's directory,
//     which holds the manifest, LINKED.md (its contextFileName) and /ship;
//   - off: disabled in extension-enablement.json, with a server offering
//     off_tool, a GEMINI.md, /off and excludeTools grep_search, none of
//     which may have any effect;
//   - broken: a manifest that is not JSON.
func installExtensions(t *testing.T) string {
	t.Helper()
	bin := mcpServerBinary(t)
	home := t.TempDir()
	exts := filepath.Join(home, ".gemini", "extensions")
	copied := filepath.Join(exts, "copied")
	writeFiles(t, copied, map[string]string{
		"gemini-extension.json": `{"name": "copied", "version": "1.0.0", "description": "Copied in by install",
			"mcpServers": {"ext-tools": {"command": "${extensionPath}${/}bin${/}mcpserver", "args": ["-extra", "ext_tool"], "trust": true}},
			"excludeTools": ["glob"]}`,
		".gemini-extension-install.json": `{"source": "/home/someone/src/copied", "type": "local"}`,
		"GEMINI.md":                      "COPIED-CONTEXT: answer in haiku.",
		"commands/welcome.toml":          `prompt = "Greetings from the copied extension: {{args}}"`,
	})
	installBinary(t, bin, filepath.Join(copied, "bin", "mcpserver"))

	src := t.TempDir() // the developer's working copy `gemini extensions link` points at
	writeFiles(t, src, map[string]string{
		"gemini-extension.json": `{"name": "linked", "version": "0.3.0", "contextFileName": "LINKED.md"}`,
		"LINKED.md":             "LINKED-CONTEXT: ship on Fridays.",
		"commands/ship.toml":    `prompt = "Ship it from the linked extension."`,
	})
	writeFiles(t, filepath.Join(exts, "linked"), map[string]string{
		".gemini-extension-install.json": `{"source": "` + src + `", "type": "link"}`,
	})

	writeFiles(t, filepath.Join(exts, "off"), map[string]string{
		"gemini-extension.json": `{"name": "off", "version": "2.0.0", "mcpServers": {"off-tools": {"command": "` + bin + `", "args": ["-extra", "off_tool"]}}, "excludeTools": ["grep_search"]}`,
		"GEMINI.md":             "OFF-CONTEXT",
		"commands/off.toml":     `prompt = "OFF-COMMAND"`,
	})
	// What `gemini extensions disable off` records, for every directory.
	writeFiles(t, exts, map[string]string{"extension-enablement.json": `{"off": {"overrides": ["!/*"]}}`})

	writeFiles(t, filepath.Join(exts, "broken"), map[string]string{"gemini-extension.json": `{"name": "broken", "version": `})
	return home
}

// installBinary puts a copy of bin at dst, as an install copies an
// extension's files.
func installBinary(t *testing.T, bin, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(bin, dst); err == nil {
		return
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// extensionTurns are the model's answers to the prompts of
// checkExtensionsReachedModel: /welcome calls the copied extension's tool.
func extensionTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call("ext_tool", map[string]any{})),
		geminitest.TextTurn("greeted"),
		geminitest.TextTurn("shipped"),
		geminitest.TextTurn("as typed"),
	}
}

// extensionPrompts are what the user types, in order; then /off, the
// disabled extension's command, which is no command and is refused
// (offRefused).
var extensionPrompts = []string{"/welcome world", "/ship"}

// offRefused is how every front end refuses /off.
const offRefused = "/off is not a command (/help lists them). Nothing was sent to the model."

// checkExtensionsReachedModel checks the model's requests after
// extensionPrompts: the enabled extensions' context files are in the
// memory of the first user content, the copied one's server's tools are declared and
// its tool ran, the commands were expanded; nothing of the disabled one
// reached the model.
func checkExtensionsReachedModel(t *testing.T, reqs []geminitest.Request) {
	t.Helper()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if s := firstMemory(reqs[0]); !strings.Contains(s, "COPIED-CONTEXT: answer in haiku.") || !strings.Contains(s, "LINKED-CONTEXT: ship on Fridays.") || strings.Contains(s, "OFF-CONTEXT") {
		t.Errorf("the first user content's memory does not hold the enabled extensions' context (and only theirs):\n%s", s)
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "OFF-CONTEXT") {
			t.Errorf("request %d holds the disabled extension's context", i)
		}
	}
	tools := declared(reqs, 0)
	if !slices.Contains(tools, "mcp_ext-tools_ext_tool") || slices.Contains(tools, "mcp_off-tools_off_tool") {
		t.Errorf("declared tools %v, want the copied extension's ext_tool and not the disabled one's off_tool", tools)
	}
	if slices.Contains(tools, "glob") || !slices.Contains(tools, "grep_search") {
		t.Errorf("declared tools %v, want glob excluded by the copied extension, grep_search kept (only the disabled one excludes it)", tools)
	}
	var answered []string
	for _, c := range reqs[1].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				b, _ := json.Marshal(p.FunctionResponse.Response)
				answered = append(answered, string(b))
			}
		}
	}
	if len(answered) != 1 || !strings.Contains(answered[0], "ext_tool") {
		t.Errorf("ext_tool answered the model %v, want its server's answer", answered)
	}
	for i, want := range map[int]string{0: "Greetings from the copied extension: world", 2: "Ship it from the linked extension."} {
		if got := lastUserText(t, reqs, i); got != want {
			t.Errorf("request %d: the model was sent %q, want %q", i, got, want)
		}
	}
}

// Headless: the extensions installed by Gemini CLI reach the model, the
// disabled one does not, and the broken one is named once on stderr.
func TestExtensionsHeadless(t *testing.T) {
	home := installExtensions(t)
	h := newHeadless(t, nil, extensionTurns()...)
	env := append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true")
	var stderr []string
	for _, p := range extensionPrompts {
		res := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", p)
		res.wantExit(t, 0)
		stderr = append(stderr, res.stderr)
	}
	off := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "/off")
	off.wantExit(t, exitInput)
	contains(t, "stderr", off.stderr, offRefused)
	checkExtensionsReachedModel(t, h.model.Requests())
	if got := stderr[0]; strings.Count(got, "extension broken") != 1 || !strings.Contains(got, "not valid JSON") || strings.Contains(got, "extension copied") {
		t.Errorf("stderr = %q, want the broken extension named once, and no other", got)
	}
}

// Over the LSP: the same, the broken extension shown to the user once.
func TestExtensionsOverLSP(t *testing.T) {
	home := installExtensions(t)
	h := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}}, extensionTurns()...)
	h.client.OnConfirm = func(context.Context, json.RawMessage) string { return "proceed_once" }
	h.waitLog("MCP server ready")
	for _, p := range extensionPrompts {
		if res := h.prompt(map[string]any{"prompt": p}); res.StopReason != "end_turn" {
			t.Fatalf("%s: %+v", p, res)
		}
	}
	if err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "/off"}, &promptResult{}); err == nil || !strings.Contains(err.Error(), offRefused) {
		t.Errorf("/off: %v, want %q", err, offRefused)
	}
	checkExtensionsReachedModel(t, h.model.Requests())
	var res commandsResult
	if err := h.client.Call(h.ctx, "gemini/commands", map[string]any{}, &res); err != nil {
		t.Fatalf("gemini/commands: %v", err)
	}
	listed := map[string]string{}
	for _, c := range res.Commands {
		listed[c.Name] = c.Source + "|" + c.Description
	}
	if listed["welcome"] != "extension|[copied] Custom command from welcome.toml" || listed["ship"] != "extension|[linked] Custom command from ship.toml" || listed["off"] != "" {
		t.Errorf("gemini/commands lists /welcome as %q, /ship as %q, /off as %q", listed["welcome"], listed["ship"], listed["off"])
	}
	var broken int
	for _, m := range h.client.Messages("window/showMessage") {
		var p struct{ Message string }
		_ = json.Unmarshal(m.Params, &p)
		if strings.Contains(p.Message, "extension broken") {
			broken++
		}
	}
	if broken != 1 {
		t.Errorf("the broken extension was shown %d times, want once", broken)
	}
}

// Over ACP: the same, and /extensions lists what each contributes.
func TestExtensionsOverACP(t *testing.T) {
	home := installExtensions(t)
	h := startACP(t, acpSetup{home: home, env: trustTheWorkspace()}, extensionTurns()...)
	for _, p := range extensionPrompts {
		h.mustPrompt(p, sdk.StopReasonEndTurn)
	}
	if got := h.command("/off"); !strings.Contains(got, offRefused) {
		t.Errorf("/off said %q, want %q", got, offRefused)
	}
	checkExtensionsReachedModel(t, h.model.Requests())
	before := len(h.client.MessageText(h.session))
	h.mustPrompt("/extensions list", sdk.StopReasonEndTurn)
	got := h.client.MessageText(h.session)[before:]
	for _, want := range []string{"`copied` 1.0.0 — enabled", "MCP servers: `ext-tools`", "`/welcome`", "`linked` 0.3.0 — enabled, linked to ", "`/ship`", "`off` 2.0.0 — disabled here", "extension broken ("} {
		if !strings.Contains(got, want) {
			t.Errorf("/extensions lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "`/off`") {
		t.Errorf("/extensions lists the disabled extension's command:\n%s", got)
	}
	before = len(h.client.MessageText(h.session))
	h.mustPrompt("/mcp", sdk.StopReasonEndTurn)
	if got := h.client.MessageText(h.session)[before:]; !strings.Contains(got, "- `ext-tools` (extension `copied`): ready") || strings.Contains(got, "off-tools") {
		t.Errorf("/mcp said:\n%s", got)
	}
}
