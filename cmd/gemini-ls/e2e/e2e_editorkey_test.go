package e2e

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
)

// envCommand prints a command's environment, for the model to see.
const envCommand = "env"

// runEnvSeen runs a prompt whose model runs envCommand, with a hook that
// keeps its own environment in hook-env.txt, under env; it returns what
// the command printed, what the hook kept and the keys the model's
// requests carried.
func runEnvSeen(t *testing.T, env func(h *headless) []string) (command, hook string, keys []string) {
	t.Helper()
	files := map[string]string{
		".gemini/settings.json": `{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
			{"type": "command", "name": "env", "command": "env > \"$GEMINI_PROJECT_DIR/hook-env.txt\""}]}]}}`,
	}
	h := newHeadless(t, files, call("run_shell_command", map[string]any{"command": envCommand}), geminitest.TextTurn("Ran."))
	r := h.runIn(h.root, env(h), "run", "-p", "show the environment", "--approval-mode", "yolo")
	r.wantExit(t, 0)
	fr := h.responses(1)
	if len(fr) != 1 {
		t.Fatalf("%d function responses, want the command's", len(fr))
	}
	for _, req := range h.model.Requests() {
		keys = append(keys, req.APIKey)
	}
	return responseOutput(fr[0]), h.disk("hook-env.txt"), keys
}

// The API key an editor keeps for the user (VS Code's secret storage),
// handed over in auth.EditorKeyVar, signs the model's requests and
// reaches neither the model's command nor a hook: neither under its own
// name nor as GEMINI_API_KEY.
func TestTheEditorsKeyReachesNoCommand(t *testing.T) {
	const key = "editor-kept-key-4f1c"
	command, hook, keys := runEnvSeen(t, func(h *headless) []string {
		return append(h.withoutEnv("GEMINI_API_KEY"), auth.EditorKeyVar+"="+key)
	})
	if len(keys) == 0 || keys[0] != key {
		t.Errorf("the model's requests carried keys %q, want the editor's", keys)
	}
	if !strings.Contains(command, "HOME=") {
		t.Fatalf("the command printed no environment: %q", command)
	}
	for what, env := range map[string]string{"the command": command, "the hook": hook} {
		if strings.Contains(env, key) || strings.Contains(env, auth.EditorKeyVar) {
			t.Errorf("%s saw the editor's key:\n%s", what, env)
		}
	}
}

// A GEMINI_API_KEY of the user's own environment reaches commands, as in
// Gemini CLI 0.61 (redaction off by default); the editor's key, given
// too, signs the requests and is not added to them.
func TestTheUsersOwnKeyReachesCommandsAsIn061(t *testing.T) {
	const own, editors = "users-own-key-9a2e", "editor-kept-key-4f1c"
	command, hook, keys := runEnvSeen(t, func(h *headless) []string {
		return append(h.withoutEnv("GEMINI_API_KEY"), "GEMINI_API_KEY="+own, auth.EditorKeyVar+"="+editors)
	})
	if len(keys) == 0 || keys[0] != editors {
		t.Errorf("the model's requests carried keys %q, want the editor's, set over the environment's", keys)
	}
	for what, env := range map[string]string{"the command": command, "the hook": hook} {
		if !strings.Contains(env, "GEMINI_API_KEY="+own) || strings.Contains(env, editors) {
			t.Errorf("%s: want the user's own GEMINI_API_KEY alone:\n%s", what, env)
		}
	}
}
