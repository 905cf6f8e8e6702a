package settings

import (
	"os"
	"path/filepath"
	"testing"
)

// agents.overrides is read, merged key by key across files.
func TestLoadAgentsOverrides(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"agents": {"overrides": {
		"a": {"enabled": false, "runConfig": {"maxTurns": 5}},
		"b": {"modelConfig": {"model": "flash", "generateContentConfig": {"temperature": 0.3, "thinkingConfig": {"thinkingBudget": 100}}}, "tools": ["glob"]}
	}}}`)
	writeSettings(t, root, `{"agents": {"overrides": {"a": {"runConfig": {"maxTimeMinutes": 2}}}}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Agents.Overrides["a"], s.Agents.Overrides["b"]
	if a.Enabled == nil || *a.Enabled || a.RunConfig == nil || a.RunConfig.MaxTurns == nil || *a.RunConfig.MaxTurns != 5 ||
		a.RunConfig.MaxTimeMinutes == nil || *a.RunConfig.MaxTimeMinutes != 2 {
		t.Errorf("a = %+v", a)
	}
	if b.ModelConfig == nil || b.ModelConfig.Model != "flash" || *b.ModelConfig.GenerateContentConfig.Temperature != 0.3 ||
		*b.ModelConfig.GenerateContentConfig.ThinkingConfig.ThinkingBudget != 100 || len(b.Tools) != 1 {
		t.Errorf("b = %+v", b)
	}
	for _, u := range s.UnreadKeys() {
		if u.Key == "agents.overrides" {
			t.Errorf("agents.overrides reported unread: %+v", u)
		}
	}
}

// The older experimental settings become agents.overrides in their own
// file, winning there over the file's agents.overrides, as 0.61's
// migrateExperimentalSettings has it; a later file's overrides still win.
func TestLoadMigratesExperimentalAgentSettings(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{
		"agents": {"overrides": {"codebase_investigator": {"enabled": true, "runConfig": {"maxTurns": 9}}}},
		"experimental": {
			"codebaseInvestigatorSettings": {"enabled": false, "maxNumTurns": 7, "maxTimeMinutes": 4, "model": "pro", "thinkingBudget": 512},
			"cliHelpAgentSettings": {"enabled": false}
		}}`)
	writeSettings(t, root, `{"agents": {"overrides": {"cli_help": {"enabled": true}}}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	ci := s.Agents.Overrides["codebase_investigator"]
	if ci.Enabled == nil || *ci.Enabled {
		t.Errorf("codebase_investigator enabled = %v, want false", ci.Enabled)
	}
	if ci.RunConfig == nil || *ci.RunConfig.MaxTurns != 7 || *ci.RunConfig.MaxTimeMinutes != 4 {
		t.Errorf("runConfig = %+v", ci.RunConfig)
	}
	if ci.ModelConfig == nil || ci.ModelConfig.Model != "pro" || *ci.ModelConfig.GenerateContentConfig.ThinkingConfig.ThinkingBudget != 512 {
		t.Errorf("modelConfig = %+v", ci.ModelConfig)
	}
	if h := s.Agents.Overrides["cli_help"]; h.Enabled == nil || !*h.Enabled {
		t.Errorf("cli_help enabled = %v, want the workspace's true", h.Enabled)
	}
	for _, u := range s.UnreadKeys() {
		if u.Key == "experimental.codebaseInvestigatorSettings" || u.Key == "experimental.cliHelpAgentSettings" {
			t.Errorf("%s reported unread", u.Key)
		}
	}
}

// /agents enable and disable write agents.overrides.NAME.enabled, keep the
// rest of the file, and leave a file that says so already alone.
func TestSetAgentEnabled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("{\n  // mine\n  \"model\": {\"name\": \"x\"}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := SetAgentEnabled(t.Context(), path, "my-agent", false)
	if err != nil || !changed {
		t.Fatalf("SetAgentEnabled = %v, %v", changed, err)
	}
	want := "{\n  \"agents\": {\n    \"overrides\": {\n      \"my-agent\": {\n        \"enabled\": false\n      }\n    }\n  },\n  // mine\n  \"model\": {\"name\": \"x\"}\n}\n"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("file =\n%s\nwant\n%s", got, want)
	}
	if enabled, ok, err := AgentEnabled(path, "my-agent"); err != nil || !ok || enabled {
		t.Errorf("AgentEnabled = %v, %v, %v", enabled, ok, err)
	}
	if changed, err := SetAgentEnabled(t.Context(), path, "my-agent", false); err != nil || changed {
		t.Errorf("second SetAgentEnabled = %v, %v, want no change", changed, err)
	}
	if changed, err := SetAgentEnabled(t.Context(), path, "my-agent", true); err != nil || !changed {
		t.Errorf("enable = %v, %v", changed, err)
	}
	if enabled, ok, _ := AgentEnabled(path, "my-agent"); !ok || !enabled {
		t.Errorf("AgentEnabled after enable = %v, %v", enabled, ok)
	}
	if _, ok, err := AgentEnabled(filepath.Join(t.TempDir(), "none.json"), "x"); ok || err != nil {
		t.Errorf("a missing file says %v, %v", ok, err)
	}
}
