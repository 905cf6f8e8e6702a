package settings

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// env is a fake environment for Load, in which workspaces are trusted
// unless vars say otherwise (trust has its own tests), and the system
// layers are files that do not exist unless vars name others: the
// machine's own /etc/gemini-cli never takes part in a test.
func env(vars map[string]string) Getenv {
	defaults := map[string]string{
		"GEMINI_CLI_TRUST_WORKSPACE":      "true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "/nonexistent/gemini-ls-test/settings.json",
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "/nonexistent/gemini-ls-test/system-defaults.json",
	}
	return func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return defaults[k]
	}
}

// load is Load as setup calls it: trust decided first, from the same
// environment, its error joined to Load's.
func load(getenv Getenv, roots []string) (Settings, error) {
	trust, trustErr := DecideTrust(getenv, roots)
	s, err := Load(getenv, roots, trust)
	return s, errors.Join(trustErr, err)
}

func writeSettings(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadWorkspaceWinsKeyByKey(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{
		// the user's
		"tools": {"discoveryCommand": "user-discover", "callCommand": "user-call"},
		"mcpServers": {
			"shared": {"command": "user-cmd", "args": ["-v"], "trust": true},
			"userOnly": {"httpUrl": "http://127.0.0.1:1/mcp"},
		},
	}`)
	writeSettings(t, root, `{
		"tools": {"callCommand": "ws-call"},
		"mcpServers": {"shared": {"command": "ws-cmd"}}
	}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if s.Tools.DiscoveryCommand != "user-discover" || s.Tools.CallCommand != "ws-call" {
		t.Errorf("tools = %+v, want the user's discovery command and the workspace's call command", s.Tools)
	}
	shared := s.MCPServers["shared"]
	if shared.Command != "ws-cmd" || shared.Args != nil || shared.Trust {
		t.Errorf("shared server = %+v, want the workspace's entry whole (no args, no trust inherited)", shared)
	}
	if s.MCPServers["userOnly"].HTTPURL != "http://127.0.0.1:1/mcp" {
		t.Errorf("userOnly server lost: %+v", s.MCPServers)
	}
}

func TestLoadLaterRootWins(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	writeSettings(t, a, `{"tools": {"discoveryCommand": "a"}}`)
	writeSettings(t, b, `{"tools": {"discoveryCommand": "b"}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{a, b})
	if err != nil || s.Tools.DiscoveryCommand != "b" {
		t.Errorf("Load = %+v, %v; want the last root's value", s.Tools, err)
	}
}

func TestLoadGeminiCLIHome(t *testing.T) {
	home, cliHome := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"tools": {"callCommand": "home"}}`)
	writeSettings(t, cliHome, `{"tools": {"callCommand": "cli-home"}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_HOME": cliHome}), nil)
	if err != nil || s.Tools.CallCommand != "cli-home" {
		t.Errorf("Load = %+v, %v; want GEMINI_CLI_HOME's file", s.Tools, err)
	}
}

func TestLoadMissingFilesAreNotErrors(t *testing.T) {
	s, err := load(env(platformtest.HomeVars(map[string]string{}, t.TempDir())), []string{t.TempDir()})
	if err != nil {
		t.Errorf("Load with no files: %v", err)
	}
	if !reflect.DeepEqual(s.Tools, Tools{}) || len(s.MCPServers) != 0 {
		t.Errorf("Load with no files = %+v", s)
	}
	// Gemini CLI's schema defaults, where the zero value would differ.
	if s.Model.MaxSessionTurns != -1 || s.Model.CompressionThreshold != 0.5 || s.General.DefaultApprovalMode != "default" {
		t.Errorf("defaults = %+v %+v", s.Model, s.General)
	}
}

func TestLoadMalformedFileIsReportedAndSkipped(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"tools": {"discoveryCommand": "user-discover"}}`)
	bad := writeSettings(t, root, "{\n  \"tools\": {\n    \"callCommand\": \"x\"\n    \"discoveryCommand\": \"y\"\n  }\n}")
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("Load error = %v, want a *FileError", err)
	}
	if fe.Path != bad || fe.Line != 4 || fe.Col != 5 {
		t.Errorf("FileError = %s:%d:%d, want %s:4:5 (the missing comma)", fe.Path, fe.Line, fe.Col, bad)
	}
	if want := "settings file " + bad + ":4:5: expected a comma or } after the value (a comma missing?), found '\"'; the file was ignored"; err.Error() != want {
		t.Errorf("error text %q, want %q: the file, the position, what was expected and found, and that the file was ignored", err, want)
	}
	if s.Tools.DiscoveryCommand != "user-discover" || s.Tools.CallCommand != "" {
		t.Errorf("settings = %+v, want the user's file only", s.Tools)
	}
}

func TestLoadWrongTypeIsBlamedOnItsFile(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"tools": {"callCommand": "user-call"}}`)
	bad := writeSettings(t, root, `{"tools": {"callCommand": ["not", "a", "string"]}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "tools.callCommand must be a string") {
		t.Errorf("Load error = %v, want %s blamed for tools.callCommand", err, bad)
	}
	if s.Tools.CallCommand != "user-call" {
		t.Errorf("settings = %+v, want the user's value kept", s.Tools)
	}
}

func TestLoadNotAnObject(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `[1, 2]`)
	_, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err == nil || !strings.Contains(err.Error(), "must hold a JSON object") {
		t.Errorf("Load error = %v", err)
	}
}

func TestLoadExpandsEnvironmentVariables(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{
		"tools": {"discoveryCommand": "$TOOLS/discover --root ${ROOT}", "callCommand": "${MISSING:-fallback}/call $UNSET"},
		"mcpServers": {"s": {"headers": {"Authorization": "Bearer ${TOKEN}"}}}
	}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "TOOLS": "/opt/t", "ROOT": "/w", "TOKEN": "sekrit"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Tools.DiscoveryCommand, "/opt/t/discover --root /w"; got != want {
		t.Errorf("discoveryCommand = %q, want %q", got, want)
	}
	if got, want := s.Tools.CallCommand, "fallback/call $UNSET"; got != want {
		t.Errorf("callCommand = %q, want %q (unset variables stay as written)", got, want)
	}
	if got := s.MCPServers["s"].Headers["Authorization"]; got != "Bearer sekrit" {
		t.Errorf("header = %q", got)
	}
}

func TestLoadHomeAsRootReadsTheFileOnce(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"tools": {"callCommand": "c"}}`)
	// Untrusted: were the file read again as the root's, it would be refused.
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": "false"}), []string{home})
	if err != nil || s.Tools.CallCommand != "c" {
		t.Errorf("Load = %+v, %v; want the user's file, once", s.Tools, err)
	}
}

func TestLoadRefusesASpecialFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(path, 0o755); err != nil { // a directory in its place
		t.Fatal(err)
	}
	_, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err == nil || !strings.Contains(err.Error(), path+": it is a directory, not a regular file") {
		t.Errorf("Load error = %v", err)
	}
}

// Gemini CLI's top-level useWriteTodos is read as it writes it.
func TestLoadUseWriteTodos(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"useWriteTodos": false}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil || s.UseWriteTodos == nil || *s.UseWriteTodos {
		t.Errorf("Load = %v, %v; want useWriteTodos false", s.UseWriteTodos, err)
	}
}

// Gemini CLI's skills object is read as it writes it; skills.disabled is
// a union of the layers, as in its schema.
func TestLoadSkills(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"skills": {"disabled": ["a", "b"]}}`)
	writeSettings(t, root, `{"skills": {"enabled": false, "disabled": ["c"]}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if s.Skills.SkillsEnabled() || !slices.Equal(s.Skills.Disabled, []string{"a", "b", "c"}) {
		t.Errorf("skills = enabled %v, disabled %q; want false and a, b, c", s.Skills.SkillsEnabled(), s.Skills.Disabled)
	}
}
