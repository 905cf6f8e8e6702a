package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeSystem writes the system settings file and returns the test
// environment that reads it, with home as the user's home.
func writeSystem(t *testing.T, home, text string) Getenv {
	t.Helper()
	system := filepath.Join(t.TempDir(), "system.json")
	if err := os.WriteFile(system, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH": system})
}

// The admin object is the system settings file's alone: a user's or a
// workspace's is refused by name and loosens nothing, and its locks go
// over what every other file says.
func TestAdminIsTheSystemFilesAlone(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	user := writeSettings(t, home, `{"admin": {"secureModeEnabled": false, "mcp": {"enabled": true}},
		"security": {"disableYoloMode": false, "enablePermanentToolApproval": true}}`)
	project := writeSettings(t, root, `{"admin": {"skills": {"enabled": true}}, "skills": {"enabled": true}}`)
	getenv := writeSystem(t, home, `{"admin": {"secureModeEnabled": true, "mcp": {"enabled": false}, "skills": {"enabled": false}}}`)
	s, err := load(getenv, []string{root})
	for _, path := range []string{user, project} {
		if err == nil || !strings.Contains(err.Error(), path+": admin is read only from the system settings file; ignored") {
			t.Errorf("the admin object of %s was not refused: %v", path, err)
		}
	}
	if !s.Admin.SecureModeEnabled || s.Admin.MCP.On() || s.Admin.Skills.On() || !s.Admin.Extensions.On() {
		t.Errorf("Admin = %+v, want the system file's", s.Admin)
	}
	sec := s.Security
	if !sec.DisableYoloMode || !sec.DisableAlwaysAllow || sec.EnablePermanentToolApproval || s.Skills.SkillsEnabled() {
		t.Errorf("secure mode and admin.skills did not lock: security %+v, skills %+v", sec, s.Skills)
	}
	// Nor does the editor loosen it.
	over, err := s.With(map[string]any{
		"admin":    map[string]any{"secureModeEnabled": false},
		"security": map[string]any{"disableYoloMode": false, "disableAlwaysAllow": false},
		"skills":   map[string]any{"enabled": true},
	})
	if err != nil || !over.Admin.SecureModeEnabled || !over.Security.DisableYoloMode || !over.Security.DisableAlwaysAllow || over.Skills.SkillsEnabled() {
		t.Errorf("an overlay loosened the admin locks: %v, %+v, %+v", err, over.Admin, over.Security)
	}
	if got := s.UnreadKeys(); len(got) != 0 {
		t.Errorf("UnreadKeys = %+v, want none: the admin keys are read", got)
	}
}

// Without a system file, or one without admin, nothing is locked.
func TestAdminUnsetLocksNothing(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"admin": {"secureModeEnabled": true}}`)
	s, _ := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if s.Admin.SecureModeEnabled || s.Security.DisableYoloMode || !s.Admin.MCP.On() || !s.Admin.Extensions.On() || !s.Skills.SkillsEnabled() {
		t.Errorf("a user's admin object locked something: %+v, %+v", s.Admin, s.Security)
	}
}

func TestWithAdminMCP(t *testing.T) {
	f, tr := false, true
	user := map[string]MCPServer{
		"local":   {Command: "srv", Args: []string{"-v"}, Env: map[string]string{"A": "b"}, Cwd: "/w", Timeout: 5, IncludeTools: []string{"mine"}},
		"remote":  {HTTPURL: "http://user/mcp", Trust: true, ExcludeTools: []string{"x"}},
		"blocked": {Command: "other"},
		"same":    {Command: "user-own"},
	}
	tests := []struct {
		name     string
		admin    AdminMCP
		want     map[string]MCPServer
		blocked  []string
		required []string
	}{
		{name: "off", admin: AdminMCP{Enabled: &f}, want: nil},
		{name: "unset", admin: AdminMCP{}, want: user},
		{name: "on", admin: AdminMCP{Enabled: &tr}, want: user},
		{
			name: "allowlist",
			admin: AdminMCP{Config: map[string]AdminMCPServer{
				"local":  {URL: "https://admin/local", Type: "http", Trust: &tr},
				"remote": {URL: "https://admin/remote", Type: "sse", IncludeTools: []string{"a"}},
				"absent": {URL: "https://admin/absent", Type: "http"},
			}},
			want: map[string]MCPServer{
				// The user's tools stay when the admin lists none; the way in
				// and the trust are the admin's.
				"local":  {URL: "https://admin/local", Type: "http", Trust: true, Timeout: 5, IncludeTools: []string{"mine"}},
				"remote": {URL: "https://admin/remote", Type: "sse", IncludeTools: []string{"a"}},
			},
			blocked: []string{"blocked", "same"},
		},
		{
			name: "required",
			admin: AdminMCP{RequiredConfig: map[string]AdminMCPServer{
				"same":  {URL: "https://admin/same", Type: "http", Headers: map[string]string{"X": "y"}},
				"extra": {URL: "https://admin/extra", Type: "sse", Trust: &f},
			}},
			want: map[string]MCPServer{
				"local": user["local"], "remote": user["remote"], "blocked": user["blocked"],
				"same":  {URL: "https://admin/same", Type: "http", Headers: map[string]string{"X": "y"}, Trust: true},
				"extra": {URL: "https://admin/extra", Type: "sse"},
			},
			required: []string{"extra", "same"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Settings{MCPServers: user, Admin: Admin{MCP: tt.admin}}
			got, res := s.WithAdminMCP()
			if !reflect.DeepEqual(got.MCPServers, tt.want) {
				t.Errorf("servers:\n got %+v\nwant %+v", got.MCPServers, tt.want)
			}
			if !slices.Equal(res.Blocked, tt.blocked) || !slices.Equal(res.Required, tt.required) {
				t.Errorf("blocked %q, required %q; want %q, %q", res.Blocked, res.Required, tt.blocked, tt.required)
			}
		})
	}
	if len(user) != 4 || user["local"].Command != "srv" {
		t.Errorf("the settings' own servers were changed: %+v", user)
	}
}

func TestAdminMessages(t *testing.T) {
	for got, want := range map[string]string{
		AdminDisabledMessage("MCP"):                 "MCP is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli",
		AdminBlockedMCPMessage([]string{"a"}):       "1 MCP server is not allowlisted by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli",
		AdminBlockedMCPMessage([]string{"a", "b"}):  "2 MCP servers are not allowlisted by your administrator. To enable them, please request an update to the settings at: https://goo.gle/manage-gemini-cli",
		AdminRequiredMCPMessage([]string{"a", "b"}): "Admin-required MCP servers injected: a, b",
	} {
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

// advanced.excludedEnvVars joins every file's list with 0.61's default,
// which is always there.
func TestExcludedEnvVarsJoinTheDefault(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	s, _ := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if want := []string{"DEBUG", "DEBUG_MODE"}; !slices.Equal(s.Advanced.ExcludedEnvVars, want) {
		t.Errorf("no file: %q, want %q", s.Advanced.ExcludedEnvVars, want)
	}
	writeSettings(t, home, `{"advanced": {"excludedEnvVars": ["MINE"], "ignoreLocalEnv": true}}`)
	writeSettings(t, root, `{"advanced": {"excludedEnvVars": ["DEBUG", "THEIRS"]}}`)
	s, _ = load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if want := []string{"DEBUG", "DEBUG_MODE", "MINE", "THEIRS"}; !slices.Equal(s.Advanced.ExcludedEnvVars, want) || !s.Advanced.IgnoreLocalEnv {
		t.Errorf("files: %q (ignoreLocalEnv %v), want %q", s.Advanced.ExcludedEnvVars, s.Advanced.IgnoreLocalEnv, want)
	}
}

// The system settings and system defaults files' keys that are not read
// are listed as every other file's; the admin keys of the system file
// are read, so not listed.
func TestSystemFilesKeysNotReadAreListed(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	system, defaults := filepath.Join(dir, "settings.json"), filepath.Join(dir, "system-defaults.json")
	if err := os.WriteFile(system, []byte(`{"admin": {"secureModeEnabled": true, "mcp": {"config": {}}}, "ui": {"theme": "x"}, "colour": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(defaults, []byte(`{"general": {"vimMode": true}, "admin": {"bogus": true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := load(env(map[string]string{"HOME": home, "USERPROFILE": home,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": system, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": defaults}), nil)
	want := []Unread{
		{File: system, Key: "colour", Unknown: true},
		{File: system, Key: "ui.theme"},
		{File: defaults, Key: "admin.bogus", Unknown: true},
		{File: defaults, Key: "general.vimMode"},
	}
	if got := s.UnreadKeys(); !reflect.DeepEqual(got, want) {
		t.Errorf("UnreadKeys:\n got %+v\nwant %+v", got, want)
	}
}
