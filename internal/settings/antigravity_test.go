package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeAt writes text at dir/rel, making its directories.
func writeAt(t *testing.T, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An Antigravity user's MCP servers join the settings': the user's files
// always, a root's in a trusted folder; each server mapped from
// Antigravity's keys; a name settings.json gives keeps settings.json's
// server; what was not read is reported with why.
func TestAntigravityMCPServers(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"mcpServers": {"shared": {"command": "from-settings"}}}`)
	shared := writeAt(t, home, ".gemini/config/mcp_config.json", `{"mcpServers": {
		"local": {"command": "./bin/harbour-mcp", "args": ["--read-only"], "env": {"PGPORT": "5432"}, "disabledTools": ["drop"]},
		"remote": {"serverUrl": "https://feeds.example/mcp", "headers": {"Authorization": "Bearer ${FEED_TOKEN}"}},
		"shared": {"command": "from-antigravity"},
		"off": {"command": "x", "disabled": true},
		"signin": {"url": "https://x.example/mcp", "oauth": {"clientId": "id"}},
		"badenv": {"command": "x", "env": {"PGPORT": 5432}}
	}}`)
	writeAt(t, home, ".gemini/antigravity-cli/mcp_config.json", `{"mcpServers": {"cli": {"url": "https://cli.example/sse", "type": "sse"}}}`)
	writeAt(t, root, ".agents/mcp_config.json", `{"mcpServers": {"project": {"command": "project-mcp"}}}`)

	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "FEED_TOKEN": "tok"}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"local":   {Command: "./bin/harbour-mcp", Args: []string{"--read-only"}, Env: map[string]string{"PGPORT": "5432"}, ExcludeTools: []string{"drop"}},
		"remote":  {HTTPURL: "https://feeds.example/mcp", Headers: map[string]string{"Authorization": "Bearer tok"}},
		"shared":  {Command: "from-settings"},
		"cli":     {URL: "https://cli.example/sse", Type: "sse"},
		"project": {Command: "project-mcp"},
	}
	for name, w := range want {
		got, ok := s.MCPServers[name]
		if !ok || got.Command != w.Command || got.HTTPURL != w.HTTPURL || got.URL != w.URL || got.Type != w.Type ||
			!slices.Equal(got.Args, w.Args) || !slices.Equal(got.ExcludeTools, w.ExcludeTools) ||
			got.Env["PGPORT"] != w.Env["PGPORT"] || got.Headers["Authorization"] != w.Headers["Authorization"] {
			t.Errorf("server %s = %+v (present %v), want %+v", name, got, ok, w)
		}
	}
	for _, name := range []string{"off", "signin", "badenv"} {
		if _, ok := s.MCPServers[name]; ok {
			t.Errorf("server %s was read", name)
		}
	}
	var report []string
	for _, f := range s.AntigravityFiles() {
		if f.Path == shared {
			report = f.Detail
		}
	}
	for _, line := range []string{
		"server `local`: read",
		"server `shared`: not used: settings.json has a server of that name, which wins",
		"server `off`: not read: \"disabled\": true",
		"server `signin`: not read: its \"oauth\" block has no public description of Antigravity's fields",
	} {
		if !slices.Contains(report, line) {
			t.Errorf("the report of %s lacks %q: %q", shared, line, report)
		}
	}
	if !slices.ContainsFunc(report, func(l string) bool { return strings.HasPrefix(l, "server `badenv`: not read: ") }) {
		t.Errorf("the report does not say why badenv was not read: %q", report)
	}
}

// A root's Antigravity file is not read in an untrusted folder, and the
// report says so; the user's still is.
func TestAntigravityProjectMCPOnlyTrusted(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeAt(t, home, ".gemini/config/mcp_config.json", `{"mcpServers": {"user": {"command": "user-mcp"}}}`)
	project := writeAt(t, root, ".agents/mcp_config.json", `{"mcpServers": {"project": {"command": "project-mcp"}}}`)
	s, _ := load(env(map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_CLI_TRUST_WORKSPACE": "false"}), []string{root})
	if _, ok := s.MCPServers["project"]; ok {
		t.Error("an untrusted root's Antigravity server was read")
	}
	if _, ok := s.MCPServers["user"]; !ok {
		t.Error("the user's Antigravity server was not read in an untrusted folder")
	}
	i := slices.IndexFunc(s.AntigravityFiles(), func(f AntigravityFile) bool { return f.Path == project })
	if i < 0 || s.AntigravityFiles()[i].Read || !strings.Contains(strings.Join(s.AntigravityFiles()[i].Detail, "\n"), "only in a trusted folder") {
		t.Errorf("the untrusted root's file is not reported as not read: %+v", s.AntigravityFiles())
	}
}
