package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// unreadSettings is a user's settings.json full of Gemini CLI keys
// gemini-ls does not implement, two keys of neither, and one it reads.
const unreadSettings = `{
  "general": {"vimMode": true, "preferredEditor": "vim"},
  "ui": {"theme": "GitHub", "footer": {"hideCWD": true}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"traces": false},
  "model": {"name": "gemini-2.5-flash", "skipNextSpeakerCheck": true},
  "colour": "blue",
  "tools": {"sandboxx": true},
}`

var unreadKeys = []string{"general.preferredEditor", "general.vimMode", "ui.theme", "ui.footer.hideCWD",
	"privacy.usageStatisticsEnabled", "telemetry.traces", "model.skipNextSpeakerCheck"}

// wantEachNamedOnce fails t unless out names file, each key of
// unreadKeys once, and colour and tools.sandboxx once as unknown.
func wantEachNamedOnce(t *testing.T, out, file string) {
	t.Helper()
	if !strings.Contains(out, "settings file "+file+": gemini-ls does not implement Gemini CLI's ") {
		t.Errorf("the file is not named:\n%s", out)
	}
	for _, key := range unreadKeys {
		if n := strings.Count(out, key+",") + strings.Count(out, key+";"); n != 1 {
			t.Errorf("%s named %d times, want once:\n%s", key, n, out)
		}
	}
	if !strings.Contains(out, "neither gemini-ls nor Gemini CLI has a setting colour, tools.sandboxx (did you mean tools.sandbox?); ignored") {
		t.Errorf("the unknown keys are not named as unknown:\n%s", out)
	}
	if strings.Contains(out, "model.name") {
		t.Errorf("a key gemini-ls reads is named:\n%s", out)
	}
}

// Each settings key gemini-ls does not read is named on stderr, once,
// with its file; the keys it reads still apply.
func TestRunNamesEachUnreadSettingOnce(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("fine"))
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": unreadSettings})
	trustFolder(t, home, h.root)
	res := h.runIn(h.root, append(h.withoutEnv("HOME"), "HOME="+home, "GEMINI_MODEL="), "run", "-p", "hi")
	res.wantExit(t, 0)
	wantEachNamedOnce(t, res.stderr, filepath.Join(home, ".gemini", "settings.json"))
	if n := strings.Count(res.stderr, "settings file "); n != 1 {
		t.Errorf("%d warnings about settings files, want one:\n%s", n, res.stderr)
	}
	if got := h.model.Requests()[0].Model; got != "gemini-2.5-flash" {
		t.Errorf("model = %q, want the settings' model.name", got)
	}
}

// Over LSP the keys are shown once through window/showMessage, and not
// again when the settings are read again for workspace/didChangeConfiguration.
func TestUnreadSettingsAreShownOnceThroughLSP(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": unreadSettings})
	h := start(t, setup{profile: lsptest.Plugin(), env: []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}},
		geminitest.TextTurn("one"))
	isUnread := func(raw json.RawMessage) bool { return strings.Contains(string(raw), "does not implement") }
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", isUnread); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notify(h.ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"gemini": map[string]any{"model": map[string]any{"name": "other"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", func(raw json.RawMessage) bool { return strings.Contains(string(raw), "now using model other") }); err != nil {
		t.Fatal(err)
	}
	shown := strings.Join(h.showMessages(), "\n")
	wantEachNamedOnce(t, shown, filepath.Join(home, ".gemini", "settings.json"))
}

// `run --include-directories` (comma-separated, repeatable) and settings'
// context.includeDirectories add roots: a file in one is read; a file
// beside them is still refused.
func TestRunIncludeDirectories(t *testing.T) {
	h := newHeadless(t, map[string]string{
		".gemini/settings.json": `{"context": {"includeDirectories": ["../docs"]}}`,
		"main.go":               "package main\n",
	})
	// Siblings of the root, so that each must be added to be reachable.
	parent := filepath.Dir(h.root)
	lib, tools, docs, out := filepath.Join(parent, "lib"), filepath.Join(parent, "tools"), filepath.Join(parent, "docs"), filepath.Join(parent, "out")
	writeFiles(t, lib, map[string]string{"x.go": "package x\n"})
	writeFiles(t, tools, map[string]string{"t.sh": "echo t\n"})
	writeFiles(t, docs, map[string]string{"d.md": "# docs\n"})
	writeFiles(t, out, map[string]string{"secret.txt": "secret\n"})
	h.model.Push(geminitest.Turn{Chunks: []geminitest.Chunk{
		{Call: geminitest.Call("read_file", map[string]any{"path": filepath.Join(lib, "x.go")})},
		{Call: geminitest.Call("read_file", map[string]any{"path": filepath.Join(tools, "t.sh")})},
		{Call: geminitest.Call("read_file", map[string]any{"path": filepath.Join(docs, "d.md")})},
		{Call: geminitest.Call("read_file", map[string]any{"path": filepath.Join(out, "secret.txt")})},
	}}, geminitest.TextTurn("done"))
	res := h.runIn(h.root, trusted(t, h), "run", "--include-directories", "../lib,"+tools, "--include-directories=../missing", "-p", "read")
	res.wantExit(t, 0)
	contains(t, "stderr", res.stderr, filepath.Join(parent, "missing"))
	fr := h.responses(1)
	if len(fr) != 4 {
		t.Fatalf("%d responses, want 4", len(fr))
	}
	for i, want := range []string{"package x\n", "echo t\n", "# docs\n"} {
		if got := responseOutput(fr[i]); got != want {
			t.Errorf("read_file in added root %d = %q (error %q), want %q", i, got, responseError(fr[i]), want)
		}
	}
	if e := responseError(fr[3]); !strings.Contains(e, "within one of the workspace directories") {
		t.Errorf("read_file beside the added roots: error %q, output %q", e, responseOutput(fr[3]))
	}
	// The model is told the roots.
	var system string
	if si := h.model.Requests()[0].SystemInstruction; si != nil {
		for _, p := range si.Parts {
			system += p.Text
		}
	}
	if want := "\n- " + h.root + "\n- " + docs + "\n- " + lib + "\n- " + tools + "\n"; !strings.Contains(system+"\n", want) {
		t.Errorf("the system instruction does not list the roots %q:\n%s", want, system)
	}

}

// /directory show, run headless, lists the roots --include-directories
// added, without a model request.
func TestRunDirectoryShow(t *testing.T) {
	h := newHeadless(t, nil)
	lib := filepath.Join(filepath.Dir(h.root), "lib")
	writeFiles(t, lib, map[string]string{"x.go": "package x\n"})
	res := h.run("run", "--include-directories", lib, "-p", "/directory show")
	res.wantExit(t, 0)
	if want := "Current workspace directories:\n- " + h.root + "\n- " + lib; !strings.Contains(res.stdout, want) {
		t.Errorf("stdout = %q, want %q", res.stdout, want)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}
