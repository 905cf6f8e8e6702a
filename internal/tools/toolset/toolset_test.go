package toolset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// countingUtility answers nothing useful and counts the calls.
type countingUtility struct{ calls int }

func (u *countingUtility) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	u.calls++
	return &genai.GenerateContentResponse{}, nil
}

// The settings decide what Build leaves to them: replace's LLM fix.
func TestBuildTakesWhatTheSettingsDecide(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	vars := platformtest.HomeVars(map[string]string{}, home)
	getenv := func(k string) string { return vars[k] }
	for _, disable := range []bool{false, true} {
		u := &countingUtility{}
		set := Build(t.Context(), Config{
			Tools:    tools.Options{Workspace: ws, Utility: u},
			Settings: settings.Settings{Tools: settings.Tools{DisableLLMCorrection: disable}},
			Getenv:   getenv,
		})
		defer set.Close()
		replace, _ := set.Registry.Get(tools.ReplaceName)
		call, err := replace.Build(map[string]any{"file_path": "a.go", "old_string": "nowhere to be found", "new_string": "x"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := call.Execute(t.Context(), tools.CallInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if asked := u.calls > 0; asked == disable {
			t.Errorf("disableLLMCorrection %v: the LLM fix was asked %d times; result %q", disable, u.calls, res.Error)
		}
		if disable && !strings.Contains(res.Error, "turned off") {
			t.Errorf("with the fix off, the failure does not say so: %q", res.Error)
		}
	}

}

// MCPServers reports the servers settings name, each as it stands.
func TestMCPServers(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var none *Set
	if none.MCPServers() != nil {
		t.Error("a nil set has servers")
	}
	set := Build(t.Context(), Config{Tools: tools.Options{Workspace: ws}, Getenv: func(string) string { return "" }})
	defer set.Close()
	if set.MCPServers() != nil {
		t.Error("a set without servers has some")
	}
	set = Build(t.Context(), Config{
		Tools:    tools.Options{Workspace: ws},
		Settings: settings.Settings{MCPServers: map[string]settings.MCPServer{"nothing": {}}},
		Getenv:   func(string) string { return "" },
	})
	defer set.Close()
	if err := set.WaitForServers(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := set.MCPServers(); len(st) != 1 || st[0].Name != "nothing" || st[0].State != mcp.StateFailed || st[0].Error == "" {
		t.Errorf("MCPServers = %+v", st)
	}
}

// What the settings' variables held stays out of the warnings, the MCP
// servers' statuses and their logs: a failing discovery command and an
// MCP server that cannot be reached are shown as written ($NAME).
func TestVariablesStayOutOfMessages(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{
		"tools": {"discoveryCommand": "$SECRET_TOOL --list", "callCommand": "x"},
		"mcpServers": {"s": {"httpUrl": "http://127.0.0.1:1/mcp?key=${MCP_KEY}"}}
	}`), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := platformtest.HomeVars(map[string]string{
		"SECRET_TOOL":                     "/nonexistent/secret-tool-path",
		"MCP_KEY":                         "sk-mcp-secret",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(home, "none.json"),
	}, home)
	getenv := func(k string) string { return vars[k] }
	root := t.TempDir()
	trust, err := settings.DecideTrust(getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	set, err := settings.Load(getenv, nil, trust)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.DebugLevel)
	var warnings []string
	built := Build(t.Context(), Config{
		Tools:    tools.Options{Workspace: ws},
		Settings: set,
		Getenv:   getenv,
		Logger:   zap.New(core),
		Warn:     func(what string, err error) { warnings = append(warnings, what+": "+err.Error()) },
	})
	defer built.Close()
	if err := built.WaitForServers(t.Context()); err != nil {
		t.Fatal(err)
	}
	var seen []string
	seen = append(seen, warnings...)
	for _, st := range built.MCPServers() {
		seen = append(seen, st.Error)
	}
	for _, e := range logs.All() {
		seen = append(seen, e.Message+" "+fmt.Sprint(e.ContextMap()))
	}
	text := strings.Join(seen, "\n")
	if strings.Contains(text, "secret-tool-path") || strings.Contains(text, "sk-mcp-secret") {
		t.Errorf("a variable's value was shown:\n%s", text)
	}
	if !strings.Contains(text, "$SECRET_TOOL --list") || !strings.Contains(text, "key=$MCP_KEY") {
		t.Errorf("the failures are not shown as written:\n%s", text)
	}
}
