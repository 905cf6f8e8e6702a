package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// securityHome is a home folder whose user settings set security.
func securityHome(t *testing.T, security map[string]any) string {
	t.Helper()
	home := t.TempDir()
	b, err := json.Marshal(map[string]any{"security": security})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, home, map[string]string{".gemini/settings.json": string(b)})
	return home
}

// pickOption answers every permission request with the option whose id
// is id when it is offered, else allow_once.
func pickOption(id string) acptest.Config {
	return acptest.Config{Answer: func(p sdk.RequestPermissionRequest) acptest.Answer {
		for _, o := range p.Options {
			if string(o.OptionId) == id {
				return acptest.Answer(id)
			}
		}
		return acptest.AllowOnce
	}}
}

// The Must-show: with security.enablePermanentToolApproval, a
// shell command "allowed for all future sessions" over ACP is saved in
// ~/.gemini/policies/auto-saved.toml as Gemini CLI 0.61 writes it, and
// the next processes run a command of the same name unasked: another
// ACP agent asks nothing, and a headless run, which can ask nobody,
// runs it.
func TestPermanentApprovalHoldsInTheNextProcess(t *testing.T) {
	home := securityHome(t, map[string]any{"enablePermanentToolApproval": true})
	h := startACP(t, acpSetup{home: home, env: trustTheWorkspace(), cfg: pickOption("proceed_always_and_save")},
		call("run_shell_command", map[string]any{"command": "echo one"}),
		geminitest.TextTurn("ran"),
	)
	h.mustPrompt("run it", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	want := "allow_once=proceed_once,allow_always=proceed_always,allow_always=proceed_always_and_save,reject_once=cancel"
	if got := optionKinds(perms[0]); got != want {
		t.Fatalf("options %s, want %s", got, want)
	}
	if name := perms[0].Options[2].Name; name != "Allow this command for all future sessions" {
		t.Errorf("the permanent option is named %q, want 0.61's", name)
	}
	saved, err := os.ReadFile(filepath.Join(home, ".gemini", "policies", "auto-saved.toml"))
	if err != nil {
		t.Fatalf("the auto-saved policy: %v", err)
	}
	for _, line := range []string{`decision = "allow"`, `priority = 950`, `toolName = "run_shell_command"`, `commandPrefix = ["echo"]`, `modes = ["default", "autoEdit", "yolo"]`} {
		if !strings.Contains(string(saved), line) {
			t.Errorf("auto-saved.toml lacks %s:\n%s", line, saved)
		}
	}

	second := startACP(t, acpSetup{home: home, env: trustTheWorkspace(), cfg: pickOption("proceed_once")},
		call("run_shell_command", map[string]any{"command": "echo two"}),
		geminitest.TextTurn("ran"),
	)
	second.mustPrompt("run it", sdk.StopReasonEndTurn)
	if perms := second.client.Permissions(); len(perms) != 0 {
		t.Errorf("the next ACP agent asked %d times, want none", len(perms))
	}
	if out, errText := second.result(1); !strings.Contains(out, "two") || errText != "" {
		t.Errorf("the next ACP agent's echo: output %q, error %q", out, errText)
	}

	next := newHeadless(t, nil,
		geminitest.CallTurn(geminitest.Call("run_shell_command", map[string]any{"command": "echo three"})),
		geminitest.TextTurn("Finished."),
	)
	next.runIn(next.root, append(next.withoutEnv("HOME"), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true"), "run", "-p", "run echo three").wantExit(t, 0)
	fr := next.responses(1)
	if len(fr) != 1 || responseError(fr[0]) != "" || !strings.Contains(responseOutput(fr[0]), "three") {
		t.Errorf("the next process's echo = %+v, want it run unasked by the saved rule", fr)
	}
}

// security.disableAlwaysAllow offers no "always" at all, even with
// permanent approval on, and a rule an "always allow" saved before
// (priority 950) no longer lets a call run unasked.
func TestDisableAlwaysAllow(t *testing.T) {
	home := securityHome(t, map[string]any{"disableAlwaysAllow": true, "enablePermanentToolApproval": true})
	writeFiles(t, home, map[string]string{".gemini/policies/auto-saved.toml": "[[rule]]\ndecision = \"allow\"\npriority = 950\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"echo\"]\n"})
	h := startACP(t, acpSetup{home: home, env: trustTheWorkspace(), cfg: pickOption("proceed_always_and_save")},
		twoShellCalls(coverable, coveredNext)...,
	)
	h.mustPrompt("run both", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want one per echo: neither the saved rule nor an answer allows always", len(perms))
	}
	for _, p := range perms {
		if got := optionKinds(p); got != "allow_once=proceed_once,reject_once=cancel" {
			t.Errorf("options %s, want no allow_always", got)
		}
	}
}

// security.disableYoloMode refuses yolo from the command line, with
// Gemini CLI 0.61's FatalConfigError (exit status 52), and a client's
// switch to it over ACP, in 0.61's words.
func TestDisableYoloMode(t *testing.T) {
	const fatal = "YOLO mode is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli"
	t.Run("run --approval-mode yolo", func(t *testing.T) {
		h := newHeadless(t, nil, geminitest.TextTurn("Finished."))
		writeFiles(t, envValue(h.env, "HOME"), map[string]string{".gemini/settings.json": `{"security": {"disableYoloMode": true}}`})
		for _, flag := range [][]string{{"--approval-mode", "yolo"}, {"--yolo"}} {
			r := h.run(append([]string{"run", "-p", "hi"}, flag...)...)
			r.wantExit(t, 52)
			if !strings.Contains(r.stderr, fatal) {
				t.Errorf("%v: stderr %q, want %q", flag, r.stderr, fatal)
			}
		}
		if n := len(h.model.Requests()); n != 0 {
			t.Errorf("%d model requests, want none", n)
		}
	})
	t.Run("session/set_mode yolo", func(t *testing.T) {
		home := securityHome(t, map[string]any{"disableYoloMode": true})
		h := startACP(t, acpSetup{home: home, env: trustTheWorkspace()})
		_, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "yolo"})
		if acpCode(err) != -32602 || !strings.Contains(err.Error(), "You cannot enter YOLO mode since it is disabled in your settings.") {
			t.Errorf("set_mode yolo: %v, want refused in 0.61's words", err)
		}
		if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "autoEdit"}); err != nil {
			t.Errorf("set_mode autoEdit: %v", err)
		}
	})
}

// envValue is variable name's value in env.
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// Over LSP, gemini/confirm carries the permanent answer's label
// (permanent) where it is offered, and proceed_always_and_save saves the
// rule; with security.disableAlwaysAllow nothing "always" is offered.
func TestLSPPermanentApproval(t *testing.T) {
	profile := plugins[0].profile()
	t.Run("enablePermanentToolApproval", func(t *testing.T) {
		home := securityHome(t, map[string]any{"enablePermanentToolApproval": true})
		var asked []map[string]any
		h := start(t, setup{profile: profile, env: append(trustTheWorkspace(), "HOME="+home)}, twoShellCalls(coverable, coveredNext)...)
		h.client.OnConfirm = func(_ context.Context, raw json.RawMessage) string {
			var p map[string]any
			_ = json.Unmarshal(raw, &p)
			asked = append(asked, p)
			return "proceed_always_and_save"
		}
		h.prompt(map[string]any{"prompt": "run both"})
		if len(asked) != 1 || asked[0]["permanent"] != "Allow this command for all future sessions" || asked[0]["canAllowAlways"] != true {
			t.Errorf("gemini/confirm asked %v, want once, offering the permanent answer", asked)
		}
		if _, err := os.Stat(filepath.Join(home, ".gemini", "policies", "auto-saved.toml")); err != nil {
			t.Errorf("nothing saved: %v", err)
		}
	})
	t.Run("disableAlwaysAllow", func(t *testing.T) {
		home := securityHome(t, map[string]any{"disableAlwaysAllow": true, "enablePermanentToolApproval": true})
		var asked []map[string]any
		h := start(t, setup{profile: profile, env: append(trustTheWorkspace(), "HOME="+home)}, twoShellCalls(coverable, coveredNext)...)
		h.client.OnConfirm = func(_ context.Context, raw json.RawMessage) string {
			var p map[string]any
			_ = json.Unmarshal(raw, &p)
			asked = append(asked, p)
			return "proceed_always"
		}
		h.prompt(map[string]any{"prompt": "run both"})
		if len(asked) != 2 {
			t.Fatalf("gemini/confirm asked %d times, want twice: proceed_always holds for the call alone", len(asked))
		}
		for _, p := range asked {
			if p["canAllowAlways"] != false || p["permanent"] != nil {
				t.Errorf("gemini/confirm asked %v, want no always offered", p)
			}
		}
	})
}
