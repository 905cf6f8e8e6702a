package extensions

import (
	"path/filepath"
	"slices"
	"testing"
)

// A manifest, its install record and its hooks file are read by exact
// member names, the last of a name winning, as Gemini CLI's JSON.parse
// reads them: a later "ExcludeTools" does not undo "excludeTools", nor a
// "Command" change a server's command.
func TestManifestReadByExactNames(t *testing.T) {
	userDir, extDir := home(t)
	dir := filepath.Join(extDir, "exact")
	write(t, filepath.Join(dir, ManifestFile), `{
		"name": "exact", "version": "1.0.0", "Name": "other",
		"excludeTools": ["run_shell_command"], "ExcludeTools": [], "excludetools": [],
		"mcpServers": {"srv": {"command": "first"}, "srv": {"command": "kept", "Command": "case"}}
	}`)
	write(t, filepath.Join(dir, InstallMetadataFile), `{"source": "/src/exact", "type": "local", "Source": "/elsewhere"}`)
	write(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"BeforeTool": [{"matcher": "m", "Matcher": "M", "hooks": [{"type": "command", "command": "a", "Command": "b"}]}]}, "Hooks": {"BeforeTool": []}}`)
	got := Load(Config{UserDir: userDir, Workspace: t.TempDir(), Getenv: func(string) string { return "" }})
	if len(got.Errs) != 0 || len(got.All) != 1 {
		t.Fatalf("Load = %v, errors %v", names(got.All), got.Errs)
	}
	ext := got.All[0]
	if ext.Name != "exact" {
		t.Errorf("name %q", ext.Name)
	}
	if !slices.Equal(ext.ExcludeTools, []string{"run_shell_command"}) {
		t.Errorf("excludeTools = %q, want the one \"excludeTools\" names", ext.ExcludeTools)
	}
	if srv := ext.MCPServers["srv"]; srv.Command != "kept" {
		t.Errorf("server command %q, want the last \"srv\"'s \"command\"", srv.Command)
	}
	if ext.Install.Source != "/src/exact" {
		t.Errorf("install source %q", ext.Install.Source)
	}
	h, err := ext.Hooks()
	if err != nil {
		t.Fatal(err)
	}
	if defs := h["BeforeTool"]; len(defs) != 1 || defs[0].Matcher != "m" || defs[0].Hooks[0].Command != "a" {
		t.Errorf("hooks = %+v", h)
	}
}
