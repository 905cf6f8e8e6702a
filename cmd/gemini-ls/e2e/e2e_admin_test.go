package e2e

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

// adminFatal is 0.61's FatalConfigError for a feature an administrator
// turned off (getAdminErrorMessage), here yolo.
const adminFatal = "YOLO mode is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli"

// withSystemSettings is h's environment with the system settings file a
// temporary one holding text, and the system defaults file none.
func withSystemSettings(t *testing.T, h *headless, text string) []string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"settings.json": text})
	return append(h.env,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(dir, "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH="+filepath.Join(dir, "system-defaults.json"))
}

// admin.secureModeEnabled in the system settings file refuses yolo asked
// for on the command line, over the user's security.disableYoloMode
// false, with 0.61's words for that setting and its exit status 52; no
// model request is made. Without the lock, the same run goes through.
func TestRunAdminSecureModeRefusesYolo(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("Finished."), geminitest.TextTurn("Finished."))
	writeFiles(t, envValue(h.env, "HOME"), map[string]string{".gemini/settings.json": `{"security": {"disableYoloMode": false}}`})
	locked := withSystemSettings(t, h, `{"admin": {"secureModeEnabled": true}}`)
	for _, flag := range [][]string{{"--approval-mode", "yolo"}, {"--yolo"}} {
		r := h.runIn(h.root, locked, append([]string{"run", "-p", "hi"}, flag...)...)
		r.wantExit(t, 52)
		if want := "YOLO mode is disabled by \"secureModeEnabled\" setting.\n" + adminFatal; !strings.Contains(r.stderr, want) {
			t.Errorf("%v: stderr %q, want %q", flag, r.stderr, want)
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
	// A user's own admin object locks nothing, and is named as ignored.
	writeFiles(t, envValue(h.env, "HOME"), map[string]string{".gemini/settings.json": `{"admin": {"secureModeEnabled": true}}`})
	r := h.runIn(h.root, withSystemSettings(t, h, `{}`), "run", "-p", "hi", "--yolo")
	r.wantExit(t, 0)
	if !strings.Contains(r.stderr, "admin is read only from the system settings file; ignored") {
		t.Errorf("the user's admin object was not named as ignored:\n%s", r.stderr)
	}
}

// admin.mcp.enabled false in the system settings file: the MCP server
// the user configured is not connected, and its tools are not declared
// to the model; /mcp answers with 0.61's refusal. Without the lock, the
// same settings declare them.
func TestRunAdminMCPDisabled(t *testing.T) {
	srv := mcptest.NewSSE(t)
	h := newHeadless(t, nil, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	// Trusted: a headless run declares only what runs unasked, as 0.61.
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{"users": map[string]any{"url": srv.URL, "type": "sse", "trust": true}})})

	r := h.runIn(h.root, withSystemSettings(t, h, `{}`), "run", "-p", "hi")
	r.wantExit(t, 0)
	if got := declared(h.model.Requests(), 0); !slices.Contains(got, "mcp_users_echo") {
		t.Fatalf("without the lock, declared %q; want mcp_users_echo\nstderr:\n%s", got, r.stderr)
	}
	requestsBefore := len(srv.Requests())

	locked := withSystemSettings(t, h, `{"admin": {"mcp": {"enabled": false}}}`)
	r = h.runIn(h.root, locked, "run", "-p", "hi")
	r.wantExit(t, 0)
	if got := declared(h.model.Requests(), 1); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "mcp_") }) {
		t.Errorf("with admin.mcp.enabled false, declared %q", got)
	}
	if n := len(srv.Requests()); n != requestsBefore {
		t.Errorf("the server was reached %d times with MCP locked", n-requestsBefore)
	}
	r = h.runIn(h.root, locked, "run", "-p", "/mcp")
	if want := "MCP is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli"; !strings.Contains(r.stdout+r.stderr, want) {
		t.Errorf("/mcp said:\n%s%s\nwant %q", r.stdout, r.stderr, want)
	}
	r = h.runIn(h.root, locked, "mcp", "list")
	r.wantExit(t, 52)
	if !strings.Contains(r.stderr, "MCP is disabled by your administrator.") {
		t.Errorf("gemini-ls mcp list: stderr %q", r.stderr)
	}
}

// admin.mcp.requiredConfig puts the administrator's server in though no
// settings of the user's name it, and says so in 0.61's words.
func TestRunAdminRequiredMCP(t *testing.T) {
	srv := mcptest.NewSSE(t)
	h := newHeadless(t, nil, geminitest.TextTurn("one"))
	env := withSystemSettings(t, h, `{"admin": {"mcp": {"requiredConfig": {"corp": {"url": "`+srv.URL+`", "type": "sse"}}}}}`)
	r := h.runIn(h.root, env, "run", "-p", "hi")
	r.wantExit(t, 0)
	if got := declared(h.model.Requests(), 0); !slices.Contains(got, "mcp_corp_echo") {
		t.Errorf("declared %q; want the required server's mcp_corp_echo\nstderr:\n%s", got, r.stderr)
	}
	if !strings.Contains(r.stderr, "Admin-required MCP servers injected: corp") {
		t.Errorf("stderr does not name the required server:\n%s", r.stderr)
	}
}

// security.auth.enforcedType other than the type in use: the run fails
// as 0.61's does (exit status 41), in its words, with no model request.
// Real Gemini CLI 0.61 on the same settings says the same.
func TestRunEnforcedAuthType(t *testing.T) {
	const want = "The enforced authentication type is 'vertex-ai', but the current type is 'gemini-api-key'. Please re-authenticate with the correct type."
	h := newHeadless(t, nil, geminitest.TextTurn("Finished."))
	writeFiles(t, envValue(h.env, "HOME"), map[string]string{".gemini/settings.json": `{"security": {"auth": {"enforcedType": "vertex-ai"}}}`})
	r := h.runIn(h.root, withSystemSettings(t, h, `{}`), "run", "-p", "hi")
	r.wantExit(t, 41)
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}

	home := geminiCLIHome(t, h.root)
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{
  "security": {"auth": {"selectedType": "gemini-api-key", "enforcedType": "vertex-ai"}},
  "general": {"disableAutoUpdate": true}
}`})
	cmd := geminicli.Command(t, home, h.root, h.model.URL, "-p", "hi")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 41 || !strings.Contains(stderr.String(), want) {
		t.Errorf("Gemini CLI 0.61: exit %d (%v), stderr %q; want 41 and %q", code, err, stderr.String(), want)
	}
}

// Gemini CLI 0.61 itself takes the admin object from Code Assist's admin
// controls alone (computeMergedSettings replaces whatever a file says):
// the same system settings file that makes gemini-ls refuse yolo does not
// stop 0.61's yolo run. docs/configuration.md says gemini-ls differs so.
// (It reads the file: its security.disableYoloMode refuses.)
func TestGeminiCLIIgnoresTheSystemFilesAdmin(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("Finished."))
	run := func(system string) (code int, stdout, stderr string) {
		cmd := geminicli.Command(t, geminiCLIHome(t, h.root), h.root, h.model.URL, "-p", "hi", "--yolo")
		cmd.Env = append(cmd.Env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+secureSystemSettings(t, system))
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		_ = cmd.Run()
		if strings.Contains(errOut.String(), "Skipping system settings file") {
			t.Skipf("Gemini CLI 0.61 does not read a system settings file here:\n%s", errOut.String())
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}
	if code, _, stderr := run(`{"security": {"disableYoloMode": true}}`); code != 52 || !strings.Contains(stderr, adminFatal) {
		t.Fatalf("security.disableYoloMode: exit %d, stderr %q; want 52, the file read", code, stderr)
	}
	if code, stdout, stderr := run(`{"admin": {"secureModeEnabled": true}}`); code != 0 || !strings.Contains(stdout, "Finished.") {
		t.Errorf("admin.secureModeEnabled: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}

// secureSystemSettings writes a system settings file where Gemini CLI
// 0.61 reads one: in a directory no ancestor of which others may write
// (isFileAndDirectorySecureSync), so not under the shared /tmp.
func secureSystemSettings(t *testing.T, text string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory for a secure system settings file: %v", err)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(cache, "gemini-ls-e2e-system-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Over ACP: the system settings file's secure mode refuses a client's
// switch to yolo, and a mismatched enforced auth type makes session/new
// ask for authentication with 0.61's words.
func TestACPAdminSecureModeAndEnforcedAuth(t *testing.T) {
	system := filepath.Join(t.TempDir(), "settings.json")
	writeFiles(t, filepath.Dir(system), map[string]string{"settings.json": `{"admin": {"secureModeEnabled": true}}`})
	h := startACP(t, acpSetup{env: append(trustTheWorkspace(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system)})
	_, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "yolo"})
	if acpCode(err) != -32602 || !strings.Contains(err.Error(), "You cannot enter YOLO mode since it is disabled in your settings.") {
		t.Errorf("set_mode yolo under secure mode: %v, want refused", err)
	}

	home := securityHome(t, map[string]any{"auth": map[string]any{"enforcedType": "vertex-ai"}})
	h = startACP(t, acpSetup{home: home, noSession: true, env: trustTheWorkspace()})
	_, err = h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	want := "The enforced authentication type is 'vertex-ai', but the current type is 'gemini-api-key'. Please re-authenticate with the correct type."
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !reflect.DeepEqual(re.Data, map[string]any{"error": want}) {
		t.Errorf("session/new with another type enforced: %v (%+v), want auth_required saying %q", err, re, want)
	}
}

// The system settings file's secure mode offers no "always" over ACP,
// though the user's settings turn permanent approval on and always
// allow not off, and a rule an "always allow" saved before no longer
// lets a call run unasked: as TestDisableAlwaysAllow's setting does.
func TestACPAdminSecureModeOffersNoAlwaysAllow(t *testing.T) {
	home := securityHome(t, map[string]any{"disableAlwaysAllow": false, "enablePermanentToolApproval": true})
	writeFiles(t, home, map[string]string{".gemini/policies/auto-saved.toml": "[[rule]]\ndecision = \"allow\"\npriority = 950\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"echo\"]\n"})
	system := filepath.Join(t.TempDir(), "settings.json")
	writeFiles(t, filepath.Dir(system), map[string]string{"settings.json": `{"admin": {"secureModeEnabled": true}}`})
	h := startACP(t, acpSetup{home: home, env: append(trustTheWorkspace(), "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+system), cfg: pickOption("proceed_always_and_save")},
		twoShellCalls(coverable, coveredNext)...,
	)
	h.mustPrompt("run both", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want one per echo", len(perms))
	}
	for _, p := range perms {
		if got := optionKinds(p); got != "allow_once=proceed_once,reject_once=cancel" {
			t.Errorf("options %s, want no allow_always", got)
		}
	}
}
