package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// projectTools are a project's own tool scripts (internal/tools/discovered's
// testdata) and the .gemini/settings.json that declares them, written the
// way a Gemini CLI user would: relative commands, comments, a trailing comma.
func projectTools(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{
		".gemini/settings.json": `{
  // discovered tools, run in the project root
  "tools": {
    "discoveryCommand": "sh tools/discover.sh",
    "callCommand": "tools/call.sh",
  },
}`,
	}
	for _, name := range []string{"discover.sh", "call.sh"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "tools", "discovered", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files["tools/"+name] = string(b)
	}
	return files
}

// trusted is h's environment with a home whose trustedFolders.json
// trusts the workspace, as Gemini CLI records it.
func trusted(t *testing.T, h *headless) []string {
	t.Helper()
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/trustedFolders.json": `{"` + h.root + `": "TRUST_FOLDER"}`})
	return append(h.withoutEnv("HOME"), "HOME="+home)
}

// makeExecutable marks the workspace's call script executable.
func makeExecutable(t *testing.T, root string) {
	t.Helper()
	if err := os.Chmod(filepath.Join(root, "tools", "call.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// firstDeclares reports whether the model's first request declared name.
func firstDeclares(model *geminitest.Server, name string) bool {
	reqs := model.Requests()
	return len(reqs) > 0 && slices.Contains(declared(reqs, 0), name)
}

// The model calls a tool the project's discovery command declared; the
// plugin confirms; the call command runs in the root with the arguments
// on stdin and its output goes back to the model.
func TestDiscoveredToolThroughLSP(t *testing.T) {
	for _, pl := range plugins {
		t.Run(pl.profile().Name, func(t *testing.T) {
			h := start(t, setup{profile: pl.profile(), files: projectTools(t), env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}},
				call("discovered_tool_echo", map[string]any{"text": "hello"}),
				geminitest.TextTurn("done"),
			)
			makeExecutable(t, h.root)
			var asked map[string]string
			h.client.OnConfirm = func(_ context.Context, p json.RawMessage) string {
				_ = json.Unmarshal(p, &asked)
				return "proceed_once"
			}
			h.prompt(map[string]any{"prompt": "echo"})
			if !firstDeclares(h.model, "discovered_tool_echo") {
				t.Error("discovered_tool_echo was not declared to the model")
			}
			if asked["kind"] != "execute" || asked["title"] != "Allow discovered tool discovered_tool_echo?" ||
				asked["details"] != "tools/call.sh echo\n"+`{"text":"hello"}` {
				t.Errorf("gemini/confirm params = %v", asked)
			}
			want := `{"tool": "echo", "args": {"text":"hello"}, "dir": "` + h.root + `"}` + "\n"
			if got := h.toolOutputs(1); len(got) != 1 || got[0] != want {
				t.Errorf("tool output = %q, want %q", got, want)
			}
		})
	}
}

// A discovery command that fails is shown to the user once; the server
// keeps working with the built-in tools.
func TestDiscoveryFailureIsShownThroughLSP(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{
		".gemini/settings.json": `{"tools": {"discoveryCommand": "sh -c 'echo no tools here >&2; exit 7'", "callCommand": "x"}}`,
	}, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}}, geminitest.TextTurn("still here"))
	if res := h.prompt(map[string]any{"prompt": "hi"}); res.Text != "still here" {
		t.Errorf("prompt = %+v", res)
	}
	var shown []string
	for _, m := range h.client.Messages("window/showMessage") {
		var p struct{ Message string }
		_ = json.Unmarshal(m.Params, &p)
		shown = append(shown, p.Message)
	}
	if len(shown) != 1 || !strings.Contains(shown[0], "it failed with exit code 7: no tools here") {
		t.Errorf("showMessage = %q, want the discovery failure once", shown)
	}
}

// Headless, yolo runs discovered tools without asking.
func TestRunDiscoveredToolYolo(t *testing.T) {
	h := newHeadless(t, projectTools(t),
		geminitest.CallTurn(geminitest.Call("discovered_tool_echo", map[string]any{"text": "hi", "count": 2})),
		geminitest.TextTurn("done"),
	)
	makeExecutable(t, h.root)
	h.runIn(h.root, trusted(t, h), "run", "--approval-mode", "yolo", "-p", "echo").wantExit(t, 0)
	if !firstDeclares(h.model, "discovered_tool_echo") {
		t.Error("discovered_tool_echo was not declared to the model")
	}
	fr := h.responses(1)
	want := `{"tool": "echo", "args": {"count":2,"text":"hi"}, "dir": "` + h.root + `"}` + "\n"
	if len(fr) != 1 || responseOutput(fr[0]) != want {
		t.Errorf("responses = %+v, want output %q", fr, want)
	}
}

// Headless, a failing call reports stdout, stderr, exit code and signal.
func TestRunDiscoveredToolFailure(t *testing.T) {
	h := newHeadless(t, projectTools(t),
		geminitest.CallTurn(geminitest.Call("discovered_tool_fail", map[string]any{})),
		geminitest.TextTurn("done"),
	)
	makeExecutable(t, h.root)
	h.runIn(h.root, trusted(t, h), "run", "--approval-mode", "yolo", "-p", "fail").wantExit(t, 0)
	fr := h.responses(1)
	want := "Stdout: partial output\n\nStderr: it broke\n\nError: (none)\nExit Code: 3\nSignal: (none)"
	if len(fr) != 1 || responseError(fr[0]) != want {
		t.Errorf("responses = %+v, want error %q", fr, want)
	}
}

// Headless without yolo there is nobody to ask: the tool is not offered,
// so a call of it does not run and is not found, as in Gemini CLI 0.61,
// and the user is told yolo offers it.
func TestRunDiscoveredToolDefaultModeRefuses(t *testing.T) {
	h := newHeadless(t, projectTools(t),
		geminitest.CallTurn(geminitest.Call("discovered_tool_hang", map[string]any{})),
		geminitest.TextTurn("done"),
	)
	makeExecutable(t, h.root)
	r := h.runIn(h.root, trusted(t, h), "run", "-p", "hang")
	r.wantExit(t, 0)
	if fr := h.responses(1); len(fr) != 1 || !strings.HasPrefix(responseError(fr[0]), `Tool "discovered_tool_hang" not found.`) {
		t.Errorf("responses = %+v, want the tool not found", fr)
	}
	contains(t, "stderr", r.stderr, "discovered_tool_hang is not offered to the model in the default approval mode (the yolo approval mode offers it")
	if h.exists("hang.pid") {
		t.Error("the call command ran")
	}
}

// A malformed settings file (of a trusted folder: an untrusted one's is
// not read) is reported with its path and position, and the run goes on
// without it.
func TestRunReportsABadSettingsFile(t *testing.T) {
	h := newHeadless(t, map[string]string{".gemini/settings.json": "{\n  \"tools\": {\"discoveryCommand\": \"x\" \"callCommand\": \"y\"}\n}"},
		geminitest.TextTurn("fine"))
	res := h.runIn(h.root, trusted(t, h), "run", "-p", "hi")
	res.wantExit(t, 0)
	if want := h.path(".gemini/settings.json") + ":2:37"; !strings.Contains(res.stderr, want) {
		t.Errorf("stderr = %q, want it to name %s", res.stderr, want)
	}
	if res.stdout != "fine\n" {
		t.Errorf("stdout = %q", res.stdout)
	}
}

// A workspace's settings apply only in a trusted folder, as in Gemini CLI:
// opening a cloned repository runs none of its commands. The user is told
// why the settings were not read.
func TestRunIgnoresAnUntrustedWorkspacesSettings(t *testing.T) {
	h := newHeadless(t, map[string]string{
		".gemini/settings.json": `{"tools": {"discoveryCommand": "touch discovery-ran", "callCommand": "true"}}`,
	}, geminitest.TextTurn("fine"))
	res := h.runIn(h.root, h.untrusted(), "run", "--approval-mode", "yolo", "-p", "hi")
	res.wantExit(t, exitUntrusted)
	if h.exists("discovery-ran") {
		t.Error("an untrusted workspace's discovery command ran")
	}
	contains(t, "stderr", res.stderr, "not running in a trusted directory")
	contains(t, "stderr", res.stderr, "GEMINI_CLI_TRUST_WORKSPACE=true")

	h.run("run", "-p", "hi").wantExit(t, 0)
	if !h.exists("discovery-ran") {
		t.Error("a trusted workspace's discovery command did not run")
	}
}

func TestUntrustedWorkspaceIsShownThroughLSP(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{
		".gemini/settings.json": `{"tools": {"discoveryCommand": "touch discovery-ran", "callCommand": "true"}}`,
	}})
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", nil); err != nil {
		t.Fatal(err)
	}
	var p struct{ Message string }
	_ = json.Unmarshal(h.client.Messages("window/showMessage")[0].Params, &p)
	contains(t, "showMessage", p.Message, "is not trusted")
	if _, err := os.Stat(h.path("discovery-ran")); err == nil {
		t.Error("an untrusted workspace's discovery command ran")
	}
}

// A slow discovery command does not hold up initialize: it runs in the
// background, and the first prompt waits for it, so the model is still
// told of the discovered tools.
func TestSlowDiscoveryDoesNotDelayInitialize(t *testing.T) {
	files := projectTools(t)
	files[".gemini/settings.json"] = `{"tools": {"discoveryCommand": "sh -c 'sleep 3; exec sh tools/discover.sh'", "callCommand": "tools/call.sh"}}`
	began := time.Now()
	h := start(t, setup{profile: lsptest.Plugin(), files: files, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}}, geminitest.TextTurn("ok"))
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("initialize took %s: it waited for the 3 s discovery command", took)
	}
	h.prompt(map[string]any{"prompt": "which tools?"})
	if !firstDeclares(h.model, "discovered_tool_echo") {
		t.Error("the first prompt did not wait for the discovered tools")
	}
}
