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

// systemFiles writes Gemini CLI's two system files in dir and returns the
// environment naming only the system settings file: the defaults file is
// found beside it, as Gemini CLI finds it.
func systemFiles(t *testing.T, dir, defaults, system string) map[string]string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "system-defaults.json"), []byte(defaults), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(system), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(dir, "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "",
	}
}

// Each key is set by the lowest layers up to one: the highest of those
// wins. Order: system defaults < user < workspace < system.
func TestLoadLayerOrder(t *testing.T) {
	home, root, sys := t.TempDir(), t.TempDir(), t.TempDir()
	vars := systemFiles(t, sys,
		`{"model": {"name": "defaults"}, "tools": {"callCommand": "defaults", "discoveryCommand": "defaults"}, "context": {"fileName": "DEFAULTS.md"}}`,
		`{"model": {"name": "system"}}`)
	platformtest.HomeVars(vars, home)
	writeSettings(t, home, `{"model": {"name": "user"}, "tools": {"callCommand": "user", "discoveryCommand": "user"}}`)
	writeSettings(t, root, `{"model": {"name": "workspace"}, "tools": {"callCommand": "workspace"}}`)
	s, err := load(env(vars), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{s.Model.Name, s.Tools.CallCommand, s.Tools.DiscoveryCommand, strings.Join(s.Context.FileName, ",")}
	want := []string{"system", "workspace", "user", "DEFAULTS.md"}
	if !slices.Equal(got, want) {
		t.Errorf("model.name, tools.callCommand, tools.discoveryCommand, context.fileName = %q, want %q", got, want)
	}
}

func TestSystemPaths(t *testing.T) {
	vars := map[string]string{}
	getenv := func(k string) string { return vars[k] }
	if p := SystemSettingsPath(getenv); !filepath.IsAbs(p) || filepath.Base(p) != "settings.json" {
		t.Errorf("SystemSettingsPath = %q", p)
	}
	vars["GEMINI_CLI_SYSTEM_SETTINGS_PATH"] = "/x/s.json"
	if p := SystemDefaultsPath(getenv); p != filepath.FromSlash("/x/system-defaults.json") {
		t.Errorf("SystemDefaultsPath beside /x/s.json = %q", p)
	}
	vars["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"] = "/y/d.json"
	if p := SystemDefaultsPath(getenv); p != "/y/d.json" {
		t.Errorf("SystemDefaultsPath = %q", p)
	}
}

// Trust is decided by the system layers and the user's, as in Gemini CLI.
func TestSystemSettingsDecideTrust(t *testing.T) {
	c := newTrustCase(t, "")
	for k, v := range systemFiles(t, t.TempDir(), `{}`, `{"security": {"folderTrust": {"enabled": false}}}`) {
		c.vars[k] = v
	}
	if got, err := c.load(t); got != "workspace" || err != nil {
		t.Errorf("folder trust disabled by the system settings: %q, %v", got, err)
	}
}

func TestMergeStrategies(t *testing.T) {
	home, root, sys := t.TempDir(), t.TempDir(), t.TempDir()
	vars := systemFiles(t, sys, `{"tools": {"exclude": ["web_fetch"]}}`, `{}`)
	platformtest.HomeVars(vars, home)
	writeSettings(t, home, `{"tools": {"exclude": ["run_shell_command", "web_fetch"], "core": ["read_file", "glob"], "allowed": ["run_shell_command(git)"]}}`)
	writeSettings(t, root, `{"tools": {"exclude": ["google_web_search"], "core": ["read_file"], "allowed": ["read_file"]}}`)
	s, err := load(env(vars), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	// tools.exclude is a union (each name once, in the order first seen);
	// other arrays are replaced by the later layer.
	if want := []string{"web_fetch", "run_shell_command", "google_web_search"}; !slices.Equal(s.Tools.Exclude, want) {
		t.Errorf("tools.exclude = %q, want %q", s.Tools.Exclude, want)
	}
	if !slices.Equal(s.Tools.Core, []string{"read_file"}) || !slices.Equal(s.Tools.Allowed, []string{"read_file"}) {
		t.Errorf("tools.core = %q, tools.allowed = %q; want the workspace's lists", s.Tools.Core, s.Tools.Allowed)
	}
}

func TestBadValuesAreReportedAndIgnored(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"general": {"defaultApprovalMode": "auto_edit"}, "model": {"compressionThreshold": 0.3}, "security": {"auth": {"selectedType": "vertex-ai"}}}`)
	bad := writeSettings(t, root, `{
		"general": {"defaultApprovalMode": "sometimes"},
		"model": {"compressionThreshold": 1.5, "name": "kept"},
		"security": {"auth": {"selectedType": "password"}}
	}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), []string{root})
	if s.General.DefaultApprovalMode != "auto_edit" || s.Model.CompressionThreshold != 0.3 || s.Security.Auth.SelectedType != "vertex-ai" {
		t.Errorf("settings = %+v %+v %+v; want the user's values, the workspace's bad ones ignored", s.General, s.Model, s.Security)
	}
	if s.Model.Name != "kept" {
		t.Errorf("model.name = %q: the rest of the file must still apply", s.Model.Name)
	}
	for _, want := range []string{
		bad + `: general.defaultApprovalMode: "sometimes" is not one of default, auto_edit, plan; ignored`,
		bad + `: model.compressionThreshold: 1.5 is not a fraction above 0 and at most 1; ignored`,
		bad + `: security.auth.selectedType: "password" is not one of gemini-api-key, vertex-ai, oauth-personal, cloud-shell; ignored`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v\nwant it to contain %q", err, want)
		}
	}
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Errorf("error %v is not a *FileError", err)
	}
}

// As in Gemini CLI, a settings file cannot turn on yolo.
func TestYoloIsNotTakenFromAFile(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"general": {"defaultApprovalMode": "yolo"}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if s.General.DefaultApprovalMode != "default" || err == nil || !strings.Contains(err.Error(), "--approval-mode yolo") {
		t.Errorf("mode %q, error %v; want default and a warning saying where yolo is chosen", s.General.DefaultApprovalMode, err)
	}
}

func TestLegacyApprovalModeIsMigrated(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeSettings(t, home, `{"tools": {"approvalMode": "auto_edit"}}`)
	writeSettings(t, root, `{"tools": {"approvalMode": "auto_edit"}, "general": {"defaultApprovalMode": "default"}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil || s.General.DefaultApprovalMode != "auto_edit" {
		t.Errorf("tools.approvalMode: %q, %v; want general.defaultApprovalMode auto_edit", s.General.DefaultApprovalMode, err)
	}
	// The new key wins over the old one in the same file.
	s, err = load(env(platformtest.HomeVars(map[string]string{}, t.TempDir())), []string{root})
	if err != nil || s.General.DefaultApprovalMode != "default" {
		t.Errorf("both keys: %q, %v; want the new key's value", s.General.DefaultApprovalMode, err)
	}
}

func TestWrongTypesAreNamed(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"model": {"maxSessionTurns": "ten"}}`, "model.maxSessionTurns must be a whole number, not string"},
		{`{"model": {"maxSessionTurns": 1.5}}`, "model.maxSessionTurns must be a whole number, not number 1.5"},
		{`{"context": {"fileName": 3}}`, "context.fileName must be a string or an array of strings, not number"},
		{`{"context": {"fileName": ["A.md", 3]}}`, "context.fileName must be a string or an array of strings, not array with a number"},
		{`{"tools": {"exclude": "run_shell_command"}}`, "tools.exclude must be an array, not string"},
		{`{"security": {"auth": {"selectedType": true}}}`, "security.auth.selectedType must be a string, not bool"},
		{`{"model": {"thinkingBudget": "lots"}}`, "model.thinkingBudget must be a whole number, not string"},
	} {
		home := t.TempDir()
		path := writeSettings(t, home, c.file)
		_, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
		if err == nil || !strings.Contains(err.Error(), path+": "+c.want) {
			t.Errorf("%s: error = %v, want %q", c.file, err, c.want)
		}
	}
}

func TestStringListTakesBothForms(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{"context": {"fileName": "AGENTS.md"}}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil || !slices.Equal(s.Context.FileNames(), []string{"AGENTS.md"}) {
		t.Errorf("one string: %q, %v", s.Context.FileName, err)
	}
	writeSettings(t, home, `{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}`)
	s, err = load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil || !slices.Equal(s.Context.FileNames(), []string{"AGENTS.md", "GEMINI.md"}) {
		t.Errorf("a list: %q, %v", s.Context.FileName, err)
	}
	// Unset, AGENTS.md is read after GEMINI.md (0.61 reads GEMINI.md alone).
	if got := (Context{}).FileNames(); !slices.Equal(got, []string{"GEMINI.md", "AGENTS.md"}) {
		t.Errorf("unset: %q", got)
	}
}

func TestEffectiveCompressionThreshold(t *testing.T) {
	for in, want := range map[float64]float64{0: 0.5, 0.7: 0.7, 1: 1, 1.2: 0.5, -1: 0.5} {
		if got := (Model{CompressionThreshold: in}).EffectiveCompressionThreshold(); got != want {
			t.Errorf("threshold %v: %v, want %v", in, got, want)
		}
	}
}

func TestThinkingBudgetFor(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{
		"model": {"thinkingBudget": 1024},
		"modelConfigs": {
			"overrides": [{"match": {"model": "gemini-2.5-pro"}, "modelConfig": {"generateContentConfig": {"thinkingConfig": {"thinkingBudget": 2048}}}}],
			"customOverrides": [
				{"match": {"model": "gemini-2.5-pro"}, "modelConfig": {"generateContentConfig": {"thinkingConfig": {"thinkingBudget": 0}}}},
				{"match": {"model": "gemini-2.5-pro", "overrideScope": "codebaseInvestigator"}, "modelConfig": {"generateContentConfig": {"thinkingConfig": {"thinkingBudget": 9}}}},
				{"match": {"model": "gemini-2.5-pro"}, "modelConfig": {"generateContentConfig": {"temperature": 0.2}}}
			]
		}
	}`)
	s, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.ThinkingBudgetFor("gemini-2.5-pro"); b == nil || *b != 0 {
		t.Errorf("pro: %v, want 0 (the last matching override with a budget, not an agent's)", b)
	}
	if b := s.ThinkingBudgetFor("gemini-2.5-flash"); b == nil || *b != 1024 {
		t.Errorf("flash: %v, want model.thinkingBudget 1024", b)
	}
	if b := (Settings{}).ThinkingBudgetFor("gemini-2.5-flash"); b != nil {
		t.Errorf("unset: %v, want nil", *b)
	}
}

func TestWithOverlay(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, `{
		"model": {"name": "gemini-2.5-pro", "maxSessionTurns": 0},
		"general": {"defaultApprovalMode": "auto_edit"},
		"tools": {"exclude": ["web_fetch"], "core": ["read_file", "glob"]},
		"mcpServers": {"a": {"command": "a", "args": ["-v"]}}
	}`)
	files, err := load(env(map[string]string{"HOME": home, "USERPROFILE": home}), nil)
	if err != nil {
		t.Fatal(err)
	}

	// The flat keys of gemini-ls's initializationOptions.
	s, err := files.With(map[string]any{"model": "gemini-2.5-flash", "approvalMode": "yolo"})
	if err != nil || s.Model.Name != "gemini-2.5-flash" || s.General.DefaultApprovalMode != "yolo" {
		t.Errorf("flat overlay: %+v %+v, %v", s.Model, s.General, err)
	}
	// An option left blank chooses nothing.
	s, err = files.With(map[string]any{"model": "", "approvalMode": ""})
	if err != nil || s.Model.Name != "gemini-2.5-pro" || s.General.DefaultApprovalMode != "auto_edit" {
		t.Errorf("blank overlay: %+v %+v, %v", s.Model, s.General, err)
	}

	// Gemini CLI's nested shape, merged by the files' rules.
	s, err = files.With(map[string]any{
		"model":      map[string]any{"compressionThreshold": 0.8},
		"tools":      map[string]any{"exclude": []any{"glob"}, "core": []any{"grep_search"}},
		"mcpServers": map[string]any{"a": map[string]any{"command": "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Model.Name != "gemini-2.5-pro" || s.Model.CompressionThreshold != 0.8 {
		t.Errorf("model = %+v, want the file's name kept and the overlay's threshold", s.Model)
	}
	if s.Model.MaxSessionTurns != 0 {
		t.Errorf("maxSessionTurns = %d: the file's explicit 0 was lost", s.Model.MaxSessionTurns)
	}
	if !slices.Equal(s.Tools.Exclude, []string{"web_fetch", "glob"}) || !slices.Equal(s.Tools.Core, []string{"grep_search"}) {
		t.Errorf("tools = %+v, want exclude joined and core replaced", s.Tools)
	}
	if !reflect.DeepEqual(s.MCPServers["a"], MCPServer{Command: "b"}) {
		t.Errorf("server a = %+v, want the overlay's entry whole", s.MCPServers["a"])
	}
	if files.Model.CompressionThreshold != 0.5 || len(files.Tools.Exclude) != 1 {
		t.Errorf("With changed its receiver: %+v %+v", files.Model, files.Tools)
	}

	// Bad input: an error naming the key, and nothing changed.
	for want, overlay := range map[string]map[string]any{
		"model.name must be a string, not number":                                            {"model": map[string]any{"name": 3.0}},
		"approvalMode must be a string, not bool":                                            {"approvalMode": true},
		`general.defaultApprovalMode: "always" is not one of default, auto_edit, plan, yolo`: {"approvalMode": "always"},
		"tools.allowed must be an array, not string":                                         {"tools": map[string]any{"allowed": "read_file"}},
	} {
		got, err := files.With(overlay)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("With(%v): error %v, want %q", overlay, err, want)
		}
		if got.Model.Name != "gemini-2.5-pro" || got.General.DefaultApprovalMode != "auto_edit" {
			t.Errorf("With(%v) changed the settings: %+v", overlay, got)
		}
	}

	// A Settings built by hand takes an overlay too.
	hand := Settings{Model: Model{Name: "m"}, Tools: Tools{Exclude: []string{"x"}}}
	s, err = hand.With(map[string]any{"tools": map[string]any{"exclude": []any{"y"}}})
	if err != nil || s.Model.Name != "m" || !slices.Equal(s.Tools.Exclude, []string{"x", "y"}) {
		t.Errorf("hand-built: %+v, %v", s, err)
	}
	if got := s.Context.FileNames(); !slices.Equal(got, []string{"GEMINI.md", "AGENTS.md"}) {
		t.Errorf("hand-built, context.fileName unset: %q, want the default", got)
	}
}
