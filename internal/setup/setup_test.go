package setup

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The model and the approval mode are chosen as Gemini CLI ranks them:
// the front end's explicit choice, then GEMINI_MODEL (for the model), then
// settings; a later change of settings beats the explicit choice.
func TestChoose(t *testing.T) {
	files := settings.Settings{Model: settings.Model{Name: "settings-model"}, General: settings.General{DefaultApprovalMode: "auto_edit"}}
	for _, tc := range []struct {
		name      string
		opts      Options
		env       string
		set       settings.Settings
		wantModel string
		wantMode  dialog.ApprovalMode
	}{
		{"settings", Options{}, "", files, "settings-model", dialog.ApprovalAutoEdit},
		{"environment beats settings", Options{}, "env-model", files, "env-model", dialog.ApprovalAutoEdit},
		{"explicit beats both", Options{Model: "flag-model", ApprovalMode: dialog.ApprovalYolo}, "env-model", files, "flag-model", dialog.ApprovalYolo},
		{"a later change beats the explicit choice", Options{Model: "flag-model", ApprovalMode: dialog.ApprovalYolo}, "env-model",
			settings.Settings{Model: settings.Model{Name: "changed"}, General: settings.General{DefaultApprovalMode: "default"}}, "changed", dialog.ApprovalDefault},
		{"defaults", Options{}, "", settings.Settings{}, models.Default, dialog.ApprovalDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := files
			if tc.name == "defaults" {
				base = settings.Settings{}
			}
			b := &Built{opts: tc.opts, Getenv: func(k string) string {
				if k == "GEMINI_MODEL" {
					return tc.env
				}
				return ""
			}}
			model, mode, err := b.choose(base, tc.set, false)
			if err != nil {
				t.Fatal(err)
			}
			if model != tc.wantModel || mode != tc.wantMode {
				t.Errorf("choose = %q, %q; want %q, %q", model, mode, tc.wantModel, tc.wantMode)
			}
		})
	}
}

// Reload reads the settings files once: a broken file is reported once
// per change, not once for the settings before it and again after.
func TestReloadReadsTheFilesOnce(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte("{ broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	var warnings []string
	b, err := Build(context.Background(), Options{
		Workspace: ws,
		Getenv:    func(k string) string { return env[k] },
		Warn:      func(what string, err error) { warnings = append(warnings, what) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	warnings = nil
	applied, _, err := b.Reload(map[string]any{"model": map[string]any{"name": "other"}})
	if err != nil || len(applied) != 1 {
		t.Fatalf("Reload = %q, %v", applied, err)
	}
	if n := slices.Index(warnings, "some settings were not read"); n < 0 || slices.Contains(warnings[n+1:], "some settings were not read") {
		t.Errorf("warnings = %q, want the broken file reported once", warnings)
	}
}

// An approval mode a change names is every session's, also that of a
// session that switched itself (into plan mode) while the agent's mode
// stayed what the change names, as Gemini CLI's Shift+Tab leaves plan
// mode; a change that names none leaves the session's own mode alone.
func TestReloadNamedModeReachesEverySession(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+strconv.Quote(root)+`: "TRUST_FOLDER"}`)
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	b, err := Build(context.Background(), Options{Workspace: ws, Getenv: func(k string) string { return env[k] }, Warn: func(string, error) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := b.Agent.NewSession()
	s.SetApprovalMode(dialog.ApprovalPlan)
	if _, _, err := b.Reload(map[string]any{"model": map[string]any{"name": "other"}}); err != nil || s.ApprovalMode() != dialog.ApprovalPlan {
		t.Fatalf("after a change naming no mode the session's mode = %q (%v), want plan", s.ApprovalMode(), err)
	}
	applied, _, err := b.Reload(map[string]any{"general": map[string]any{"defaultApprovalMode": "default"}})
	if err != nil || s.ApprovalMode() != dialog.ApprovalDefault || b.ApprovalMode != dialog.ApprovalDefault {
		t.Errorf("after a change naming default the session's mode = %q, the server's %q (%v)", s.ApprovalMode(), b.ApprovalMode, err)
	}
	if !slices.Contains(applied, "approval mode manual") {
		t.Errorf("applied = %q, want the mode told", applied)
	}
}

// Without credentials a build stops before starting anything a front
// end that only refuses would have to stop again (headless, ACP), and
// builds the whole agent for one that serves what needs no model (the
// LSP), its MCP servers started.
func TestBuildWithoutCredentials(t *testing.T) {
	home, root, markers := t.TempDir(), t.TempDir(), t.TempDir()
	marker := filepath.Join(markers, "mcp-ran")
	server := `"command": "sh", "args": ["-c", "touch ` + marker + `"]`
	if runtime.GOOS == "windows" { // where cmd.exe leaves the mark
		server = `"command": "cmd.exe", "args": ["/c", ` + strconv.Quote("type nul > "+marker) + `]`
	}
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": {"users": {`+server+`}}}`)
	writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+strconv.Quote(root)+`: "TRUST_FOLDER"}`)
	env := map[string]string{"HOME": home, "USERPROFILE": home, "PATH": os.Getenv("PATH"), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	build := func(without bool) *Built {
		ws, err := workspace.New([]string{root}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Build(context.Background(), Options{
			Workspace:          ws,
			Getenv:             func(k string) string { return env[k] },
			WithoutCredentials: without,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		if b.AuthErr == nil {
			t.Fatal("no AuthErr without a key")
		}
		return b
	}

	if b := build(false); b.Agent != nil || b.Tools != nil {
		t.Fatalf("built an agent (%v) and tools (%v) only to be refused", b.Agent, b.Tools)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an MCP server was started for a build without credentials")
	}

	b := build(true)
	if b.Agent == nil || b.Tools == nil {
		t.Fatal("WithoutCredentials built no agent")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Tools.WaitForServers(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the MCP server did not start for the whole agent: %v", err)
	}
}

// A build made anew (after a sign-in, or the folders' trust changed)
// keeps the settings the front end changed since it started: the model
// and approval mode a change named, and what needs a restart to count
// (the tools), which the new build then uses. The front end's explicit
// choices stay beneath them, as Reload ranks them.
func TestRebuildKeepsTheChangedSettings(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
	b, err := Build(context.Background(), Options{
		Workspace: ws,
		Getenv:    func(k string) string { return env[k] },
		Overlay:   map[string]any{"model": "editor-model"},
		Model:     "editor-model",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	change := map[string]any{
		"model":   map[string]any{"name": "changed-model"},
		"general": map[string]any{"defaultApprovalMode": "auto_edit"},
		"tools":   map[string]any{"exclude": []any{tools.ShellName}},
	}
	if _, _, err := b.Reload(change); err != nil {
		t.Fatal(err)
	}
	fresh, err := b.Rebuild(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if fresh.Model != "changed-model" || fresh.ApprovalMode != dialog.ApprovalAutoEdit {
		t.Errorf("rebuilt with model %q and mode %q, want the change's changed-model and auto_edit", fresh.Model, fresh.ApprovalMode)
	}
	if _, ok := fresh.Tools.Registry.Get(tools.ShellName); ok {
		t.Errorf("the rebuilt agent offers %s, which the change excluded", tools.ShellName)
	}
	if _, ok := b.Tools.Registry.Get(tools.ShellName); !ok {
		t.Fatalf("the first build lacks %s: the test shows nothing", tools.ShellName)
	}
}

// security.disableYoloMode refuses yolo however it is asked for at
// start (an option, as --approval-mode and an editor's approvalMode
// give it; a settings overlay) and in a change a client sends later;
// other modes still go.
func TestDisableYoloModeRefusesYolo(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+strconv.Quote(root)+`: "TRUST_FOLDER"}`)
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"security": {"disableYoloMode": true}}`)
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json")}
	opts := Options{Workspace: ws, Getenv: func(k string) string { return env[k] }, Warn: func(string, error) {}}
	yoloOverlay := map[string]any{"general": map[string]any{"defaultApprovalMode": "yolo"}}

	withFlag := opts
	withFlag.ApprovalMode = dialog.ApprovalYolo
	if _, err := Load(withFlag); !errors.Is(err, dialog.ErrYoloDisabled) {
		t.Errorf("Load with ApprovalMode yolo = %v, want ErrYoloDisabled", err)
	}
	withOverlay := opts
	withOverlay.Change = yoloOverlay
	if _, err := Load(withOverlay); !errors.Is(err, dialog.ErrYoloDisabled) {
		t.Errorf("Load with an overlay naming yolo = %v, want ErrYoloDisabled", err)
	}

	b, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, _, err := b.Reload(yoloOverlay); !errors.Is(err, dialog.ErrYoloDisabled) || !errors.Is(err, ErrOverlay) {
		t.Errorf("Reload naming yolo = %v, want ErrOverlay and ErrYoloDisabled", err)
	}
	if b.ApprovalMode != dialog.ApprovalDefault {
		t.Errorf("approval mode %q after the refused change, want default", b.ApprovalMode)
	}
	if _, _, err := b.Reload(map[string]any{"general": map[string]any{"defaultApprovalMode": "auto_edit"}}); err != nil || b.ApprovalMode != dialog.ApprovalAutoEdit {
		t.Errorf("Reload naming auto_edit = %v, mode %q", err, b.ApprovalMode)
	}
}

// /mcp reload reads mcpServers again, and leaves off a server the session
// turned off (/mcp disable --session); a rebuild keeps it off.
func TestReloadMCPAndRebuildKeepASessionsDisabledServer(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	settingsFile := filepath.Join(home, ".gemini", "settings.json")
	write := func(servers string) {
		if err := os.MkdirAll(filepath.Dir(settingsFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settingsFile, []byte(`{"mcpServers": {`+servers+`}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`"docs": {"command": "/nonexistent/docs"}`)
	env := map[string]string{"HOME": home, "USERPROFILE": home, "GEMINI_API_KEY": "k", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
	b, err := Build(context.Background(), Options{Workspace: ws, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	write(`"docs": {"command": "/nonexistent/docs"}, "added": {"command": "/nonexistent/added"}`)
	b.Tools.SetMCPSessionDisabled("Docs", true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.ReloadMCP(ctx); err != nil {
		t.Fatal(err)
	}
	states := func(b *Built) map[string]mcp.ServerState {
		out := map[string]mcp.ServerState{}
		for _, s := range b.Tools.MCPServers() {
			out[s.Name] = s.State
		}
		return out
	}
	want := map[string]mcp.ServerState{"added": mcp.StateFailed, "docs": mcp.StateDisabled}
	if got := states(b); !maps.Equal(got, want) {
		t.Errorf("after /mcp reload the servers are %v, want %v", got, want)
	}
	fresh, err := b.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.Tools.WaitForServers(ctx); err != nil {
		t.Fatal(err)
	}
	if got := states(fresh); !maps.Equal(got, want) {
		t.Errorf("after a rebuild the servers are %v, want %v", got, want)
	}
}
