package setup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// adminWorld is a user with a trusted project, an MCP server and an API
// key, under a system settings file the test writes.
type adminWorld struct {
	home, root, system string
	env                map[string]string
	warnings           []string
}

func newAdminWorld(t *testing.T, system string) *adminWorld {
	t.Helper()
	w := &adminWorld{home: t.TempDir(), root: t.TempDir(), system: filepath.Join(t.TempDir(), "settings.json")}
	writeFile(t, w.system, system)
	writeFile(t, filepath.Join(w.home, ".gemini", "settings.json"), `{
		"mcpServers": {"users": {"command": "true"}},
		"security": {"disableYoloMode": false}
	}`)
	w.env = map[string]string{
		"HOME": w.home, "USERPROFILE": w.home, "PATH": os.Getenv("PATH"),
		"GEMINI_API_KEY":                  "k",
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": w.system,
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": filepath.Join(w.home, "no-defaults.json"),
	}
	return w
}

func (w *adminWorld) options(t *testing.T, mode dialog.ApprovalMode) Options {
	t.Helper()
	ws, err := workspace.New([]string{w.root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Workspace:    ws,
		Getenv:       func(k string) string { return w.env[k] },
		LookupEnv:    func(k string) (string, bool) { v, ok := w.env[k]; return v, ok },
		ApprovalMode: mode,
		Warn:         func(what string, err error) { w.warnings = append(w.warnings, what+": "+err.Error()) },
	}
}

// The system file's admin.secureModeEnabled refuses yolo in 0.61's words
// for that setting, whatever the user's settings say, and offers no
// "always allow".
func TestAdminSecureModeRefusesYolo(t *testing.T) {
	w := newAdminWorld(t, `{"admin": {"secureModeEnabled": true}}`)
	_, err := Load(w.options(t, dialog.ApprovalYolo))
	if !errors.Is(err, dialog.ErrYoloDisabled) || !strings.HasPrefix(err.Error(), `YOLO mode is disabled by "secureModeEnabled" setting.`) {
		t.Fatalf("Load with yolo = %v, want 0.61's secure mode refusal", err)
	}
	b, err := Build(context.Background(), w.options(t, dialog.ApprovalAutoEdit))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if a := b.alwaysAllow(b.Settings); !a.Disabled || a.SavedPolicy != "" {
		t.Errorf("always allow = %+v, want it disabled", a)
	}
}

// admin.mcp.enabled false: the user's server is not started; admin
// extensions and skills off: none loaded.
func TestAdminTurnsFeaturesOff(t *testing.T) {
	w := newAdminWorld(t, `{"admin": {"mcp": {"enabled": false}, "extensions": {"enabled": false}, "skills": {"enabled": false}}}`)
	writeFile(t, filepath.Join(w.home, ".gemini", "extensions", "ext", "gemini-extension.json"), `{"name": "ext", "version": "1.0.0"}`)
	b, err := Build(context.Background(), w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if len(b.Settings.MCPServers) != 0 || len(b.Tools.MCPServers()) != 0 {
		t.Errorf("MCP servers %v, statuses %v; want none", b.Settings.MCPServers, b.Tools.MCPServers())
	}
	if len(b.Extensions.All) != 0 || b.Skills != nil {
		t.Errorf("extensions %v, skills %v; want none", b.Extensions.All, b.Skills)
	}
	want := "the installed extensions are not used: Extensions is disabled by your administrator."
	if !slicesContainsPrefix(w.warnings, want) {
		t.Errorf("warnings = %q, want %q", w.warnings, want)
	}
}

// admin.mcp.config leaves out the user's servers it does not name, and
// says so in 0.61's words; requiredConfig adds the administrator's.
func TestAdminMCPAllowlistAndRequired(t *testing.T) {
	w := newAdminWorld(t, `{"admin": {"mcp": {
		"config": {"other": {"url": "http://127.0.0.1:1/mcp", "type": "http"}},
		"requiredConfig": {"corp": {"url": "http://127.0.0.1:1/corp", "type": "http"}}
	}}}`)
	b, err := Load(w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	corp, ok := b.Settings.MCPServers["corp"]
	if len(b.Settings.MCPServers) != 1 || !ok || !corp.Trust || corp.URL != "http://127.0.0.1:1/corp" {
		t.Errorf("MCP servers = %+v, want the required one alone, trusted", b.Settings.MCPServers)
	}
	for _, want := range []string{
		"MCP servers not used: 1 MCP server is not allowlisted by your administrator.",
		"MCP servers added: Admin-required MCP servers injected: corp",
	} {
		if !slicesContainsPrefix(w.warnings, want) {
			t.Errorf("warnings = %q, want %q", w.warnings, want)
		}
	}
}

// advanced.excludedEnvVars, read before the .env, keeps the variables it
// names from the project's .env, as do 0.61's defaults; a .gemini/.env
// may set them.
func TestExcludedEnvVarsKeepTheProjectsEnvOut(t *testing.T) {
	w := newAdminWorld(t, `{}`)
	writeFile(t, filepath.Join(w.root, ".gemini", "settings.json"), `{"advanced": {"excludedEnvVars": ["PROJECT_SECRET"]}}`)
	writeFile(t, filepath.Join(w.root, ".env"), "PROJECT_SECRET=x\nDEBUG=1\nKEPT=yes\n")
	b, err := Load(w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"PROJECT_SECRET": "", "DEBUG": "", "KEPT": "yes"} {
		if got := b.Getenv(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// advanced.ignoreLocalEnv: the project's .env is not read at all.
	writeFile(t, filepath.Join(w.home, ".gemini", "settings.json"), `{"advanced": {"ignoreLocalEnv": true}}`)
	if b, err = Load(w.options(t, "")); err != nil || b.Getenv("KEPT") != "" {
		t.Errorf("with ignoreLocalEnv, KEPT = %q (%v), want unset", b.Getenv("KEPT"), err)
	}
}

// security.auth.enforcedType refuses another type, in 0.61's words,
// before the credentials are looked at.
func TestEnforcedAuthType(t *testing.T) {
	w := newAdminWorld(t, `{"security": {"auth": {"enforcedType": "vertex-ai"}}}`)
	b, err := Build(context.Background(), w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	want := "The enforced authentication type is 'vertex-ai', but the current type is 'gemini-api-key'. Please re-authenticate with the correct type."
	if b.AuthErr == nil || b.AuthErr.Error() != want {
		t.Errorf("AuthErr = %v, want %q", b.AuthErr, want)
	}
}

func slicesContainsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
