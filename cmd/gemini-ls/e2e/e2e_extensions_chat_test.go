package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// greeterSource is a developer's extension directory, greeter at
// version, with a /hello command; and a directory of one skill, tidy.
func greeterSource(t *testing.T, version string) (extension, skills string) {
	t.Helper()
	extension = filepath.Join(t.TempDir(), "greeter")
	writeFiles(t, extension, map[string]string{
		"gemini-extension.json": `{"name": "greeter", "version": "` + version + `"}`,
		"commands/hello.toml":   `prompt = "GREETER says hello"`,
	})
	skills = t.TempDir()
	writeFiles(t, skills, map[string]string{"tidy/SKILL.md": "---\nname: tidy\ndescription: tidies up\n---\nTidy.\n"})
	return extension, skills
}

// Headless, /extensions install and /skills link are refused, --consent
// or not: text from a pipe or -p never changes what the agent runs
// (issue 62); nothing is installed. `gemini-ls extensions install`,
// typed on the command line, installs into HOME, and the next run lists
// the extension and runs its command.
func TestExtensionsInstallFromHeadlessChat(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("hello back"))
	src, skillsDir := greeterSource(t, "1.0.0")
	home := envValue(h.env, "HOME")
	// The workspace and the extension's source are trusted folders.
	writeFiles(t, home, map[string]string{".gemini/trustedFolders.json": `{"` + h.root + `": "TRUST_FOLDER", "` + src + `": "TRUST_FOLDER"}`})

	for _, line := range []string{"/extensions install " + src, "/extensions install " + src + " --consent", "/skills link " + skillsDir + " --consent"} {
		res := h.run("run", "-p", line)
		res.wantExit(t, exitInput)
		if !strings.Contains(res.stderr, "only where a person types it") {
			t.Errorf("%s: stderr %q", line, res.stderr)
		}
	}
	for _, dir := range []string{"extensions", "skills"} {
		if _, err := os.Stat(filepath.Join(home, ".gemini", dir)); err == nil {
			t.Fatalf("a refused command made ~/.gemini/%s", dir)
		}
	}
	res := h.run("extensions", "install", src, "--consent")
	res.wantExit(t, 0)
	if res := h.run("run", "-p", "/extensions list"); !strings.Contains(res.stdout, "`greeter` 1.0.0 — enabled") || !strings.Contains(res.stdout, "`/hello`") {
		t.Errorf("/extensions list after the install: %q %q", res.stdout, res.stderr)
	}
	h.run("run", "-p", "/hello").wantExit(t, 0)
	if got := lastUserText(t, h.model.Requests(), 0); got != "GREETER says hello" {
		t.Errorf("/hello sent the model %q", got)
	}
	res = h.run("run", "-p", "/extensions uninstall greeter")
	res.wantExit(t, exitInput)
	if res := h.run("run", "-p", "/extensions list"); !strings.Contains(res.stdout, "greeter") {
		t.Errorf("/extensions list after a refused uninstall: %q", res.stdout)
	}
}

// Over ACP, /extensions install asks through session/request_permission
// and the session loads the extension before its next prompt, without a
// restart: /extensions list shows it, its command runs; uninstall, link
// and update likewise; /skills link's skill is listed at once.
func TestExtensionsInstallFromACPChat(t *testing.T) {
	src, skillsDir := greeterSource(t, "1.0.0")
	home := t.TempDir()
	h := startACP(t, acpSetup{home: home, env: trustTheWorkspace()}, geminitest.TextTurn("hello back"))
	said := func(prompt string) string {
		t.Helper()
		before := len(h.client.MessageText(h.session))
		h.mustPrompt(prompt, sdk.StopReasonEndTurn)
		return h.client.MessageText(h.session)[before:]
	}
	if got := said("/extensions install " + src); !strings.Contains(got, `Extension "greeter" installed successfully and enabled.`) {
		t.Fatalf("install said %q", got)
	}
	asked := false
	for _, p := range h.client.Permissions() {
		for _, c := range p.ToolCall.Content {
			if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, `Installing extension "greeter".`) {
				asked = true
			}
		}
	}
	if !asked {
		t.Errorf("the install's consent was not asked: %+v", h.client.Permissions())
	}
	if got := said("/extensions list"); !strings.Contains(got, "`greeter` 1.0.0 — enabled") || !strings.Contains(got, "`/hello`") {
		t.Errorf("/extensions list in the same session after the install: %q", got)
	}
	said("/hello")
	if got := lastUserText(t, h.model.Requests(), 0); got != "GREETER says hello" {
		t.Errorf("/hello sent the model %q", got)
	}
	writeFiles(t, src, map[string]string{"gemini-extension.json": `{"name": "greeter", "version": "1.1.0"}`})
	if got := said("/extensions update greeter"); !strings.Contains(got, `Extension "greeter" successfully updated: 1.0.0 → 1.1.0.`) {
		t.Errorf("update said %q", got)
	}
	if got := said("/extensions uninstall greeter"); !strings.Contains(got, `Extension "greeter" successfully uninstalled.`) {
		t.Errorf("uninstall said %q", got)
	}
	if got := said("/extensions list"); strings.Contains(got, "greeter") {
		t.Errorf("/extensions list after the uninstall: %q", got)
	}
	if got := said("/extensions link " + src); !strings.Contains(got, `Extension "greeter" linked successfully and enabled.`) {
		t.Errorf("link said %q", got)
	}
	if got := said("/extensions list"); !strings.Contains(got, "`greeter` 1.1.0 — enabled, linked to "+src) {
		t.Errorf("/extensions list after the link: %q", got)
	}
	if got := said("/skills link " + skillsDir); !strings.Contains(got, `Successfully linked skills from "`+skillsDir+`" (user).`) {
		t.Errorf("/skills link said %q", got)
	}
	if got := said("/skills list"); !strings.Contains(got, "**tidy**") {
		t.Errorf("/skills list after the link: %q", got)
	}
}

// Over the LSP, /extensions install asks with gemini/confirm, and the
// session loads the extension before its next prompt: /extensions list
// shows it, its command runs.
func TestExtensionsInstallFromLSPChat(t *testing.T) {
	src, _ := greeterSource(t, "1.0.0")
	home := t.TempDir()
	h := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}}, geminitest.TextTurn("hello back"))
	var asked []string
	h.client.OnConfirm = func(_ context.Context, params json.RawMessage) string {
		asked = append(asked, string(params))
		return "proceed_once"
	}
	res := h.prompt(map[string]any{"prompt": "/extensions install " + src})
	if !strings.Contains(res.Text, `Extension "greeter" installed successfully and enabled.`) {
		t.Fatalf("install answered %+v", res)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], `"kind":"extension"`) || !strings.Contains(asked[0], `Installing extension \"greeter\".`) {
		t.Errorf("gemini/confirm was asked %q, want the consent once", asked)
	}
	if res := h.prompt(map[string]any{"prompt": "/extensions list", "sessionId": res.SessionID}); !strings.Contains(res.Text, "`greeter` 1.0.0 — enabled") || !strings.Contains(res.Text, "`/hello`") {
		t.Errorf("/extensions list in the same session after the install: %+v", res)
	}
	h.prompt(map[string]any{"prompt": "/hello", "sessionId": res.SessionID})
	if got := lastUserText(t, h.model.Requests(), 0); got != "GREETER says hello" {
		t.Errorf("/hello sent the model %q", got)
	}
}
