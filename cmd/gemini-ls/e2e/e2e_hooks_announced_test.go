package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// announcement is how Gemini CLI 0.61 begins its warning of project hooks
// it has not seen, and gemini-ls its own.
const announcement = "WARNING: The following project-level hooks have been detected in this workspace"

// projectHookSettings is a project's settings with one SessionStart hook.
func projectHookSettings(command string) string {
	return `{"hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", "name": "greet", "command": "` + command + `"}]}]}}`
}

// A trusted project's own hooks are announced before they first run, as
// Gemini CLI 0.61 does, and again once their command changes (a pull, a
// file a command wrote): gemini-ls lists those announced in 0.61's
// ~/.gemini/trusted_hooks.json, so a hook either program announced is not
// announced again by the other.
func TestProjectHooksAreAnnouncedOnceAsGeminiCLIDoes(t *testing.T) {
	turns := make([]geminitest.Turn, 6)
	for i := range turns {
		turns[i] = geminitest.TextTurn("Finished.")
	}
	h := newHeadless(t, map[string]string{".gemini/settings.json": projectHookSettings("true")}, turns...)
	home := strings.TrimPrefix(h.env[1], "HOME=")
	trusted := filepath.Join(home, ".gemini", "trusted_hooks.json")
	run := func() string {
		t.Helper()
		r := h.runIn(h.root, h.env, "run", "-p", "hi")
		r.wantExit(t, 0)
		return r.stderr
	}
	stderr := run()
	contains(t, "the first run's stderr", stderr, announcement)
	contains(t, "the first run's stderr", stderr, "\n  - greet\n")
	var listed map[string][]string
	data, err := os.ReadFile(trusted)
	if err != nil {
		t.Fatalf("the hooks announced were not listed: %v", err)
	}
	if err := json.Unmarshal(data, &listed); err != nil || !reflect.DeepEqual(listed, map[string][]string{h.root: {"greet:true"}}) {
		t.Errorf("trusted_hooks.json = %s (%v), want the project's hook as 0.61 keys it", data, err)
	}
	if stderr := run(); strings.Contains(stderr, announcement) {
		t.Errorf("a hook announced before was announced again: %q", stderr)
	}
	// A variable the hook's run gives, which the settings' expansion
	// leaves alone in both programs' keys.
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": projectHookSettings("echo changed in $GEMINI_PROJECT_DIR")})
	contains(t, "stderr after the hook's command changed", run(), "\n  - greet\n")

	// Gemini CLI 0.61 in a home of its own announces the changed hook and
	// lists it; gemini-ls then says nothing of it.
	cliHome := geminiCLIHome(t, h.root)
	cmd := geminicli.Command(t, cliHome, h.root, h.model.URL, "-p", "hi")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("Gemini CLI 0.61: %v\n%s", err, errOut.String())
	}
	contains(t, "Gemini CLI 0.61's stderr", errOut.String(), announcement)
	data, err = os.ReadFile(filepath.Join(cliHome, ".gemini", "trusted_hooks.json"))
	if err != nil || json.Unmarshal(data, &listed) != nil || !reflect.DeepEqual(listed, map[string][]string{h.root: {"greet:echo changed in $GEMINI_PROJECT_DIR"}}) {
		t.Fatalf("Gemini CLI 0.61's trusted_hooks.json = %s (%v)", data, err)
	}
	env := append([]string{}, h.env...)
	env[1] = "HOME=" + cliHome
	r := h.runIn(h.root, env, "run", "-p", "hi")
	r.wantExit(t, 0)
	if strings.Contains(r.stderr, announcement) {
		t.Errorf("a hook Gemini CLI 0.61 announced was announced again: %q", r.stderr)
	}
}

// Over ACP the announcement is a note in the session, as the settings no
// key reads are (TestACPUnreadSettingsAreNotedOnce): an ACP client shows
// no other message.
func TestACPProjectHooksAreAnnouncedInTheSession(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{".gemini/settings.json": projectHookSettings("true")},
		env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}})
	h.client.Wait(h.ctx, "the announcement", func(c *acptest.Client) bool {
		return strings.Contains(c.MessageText(h.session), announcement)
	})
	contains(t, "the session's note", h.client.MessageText(h.session), "\n  - greet\n")
}

// Over ACP a folder trusted at its first prompt's question is built
// again with its project's hooks, and their announcement is a note in the
// session then too, not only a line in the log.
func TestACPProjectHooksOfAFolderTrustedAtTheQuestionAreAnnounced(t *testing.T) {
	h := startACP(t, acpSetup{files: map[string]string{".gemini/settings.json": projectHookSettings("true")},
		cfg: acptest.Config{Trust: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.TrustFolder }}},
		geminitest.TextTurn("one"))
	// The session's start is told first (its commands, then its notes).
	h.client.Wait(h.ctx, "the session's commands", func(c *acptest.Client) bool {
		for _, u := range c.Updates() {
			if u.SessionId == h.session && u.Update.AvailableCommandsUpdate != nil {
				return true
			}
		}
		return false
	})
	if text := h.client.MessageText(h.session); strings.Contains(text, announcement) {
		t.Fatalf("an untrusted folder's hooks were announced: %q", text)
	}
	h.mustPrompt("first", sdk.StopReasonEndTurn)
	h.client.Wait(h.ctx, "the announcement after the folder was trusted", func(c *acptest.Client) bool {
		return strings.Contains(c.MessageText(h.session), announcement)
	})
	contains(t, "the session's note", h.client.MessageText(h.session), "\n  - greet\n")
}
