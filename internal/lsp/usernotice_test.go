package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// An MCP server that does not start is told with window/showMessage, as
// the settings' problems are, not in the editor's log alone: the model
// lacks its tools, and an editor keeps window/logMessage out of sight.
// The other warnings of the log (here, the missing credentials) stay in
// window/logMessage only.
func TestMCPServerThatDidNotStartIsShown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	home := t.TempDir()
	missing := filepath.Join(t.TempDir(), "mcp-docs")
	writeUserSettings(t, home, map[string]any{"mcpServers": map[string]any{"docs": map[string]any{"command": missing}}})
	env := platformtest.HomeVars(map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}, home)
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir(), Logger: zap.NewNop()})
	c := lsptest.New(t, conn, lsptest.Plugin())
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitMessage(ctx, "window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "MCP server docs") })
	if err != nil {
		t.Fatalf("no window/showMessage about MCP server docs: %v (got %q, and in the log %q)", err,
			messageTexts(c, "window/showMessage"), messageTexts(c, "window/logMessage"))
	}
	var p struct {
		Type    int
		Message string
	}
	_ = json.Unmarshal(m.Params, &p)
	want := "Gemini: MCP server docs failed to start; its tools are unavailable: "
	if p.Type != 2 || !strings.HasPrefix(p.Message, want) || !strings.Contains(p.Message, missing) {
		t.Errorf("showMessage = type %d %q, want a warning starting %q naming %s", p.Type, p.Message, want, missing)
	}
	for _, msg := range messageTexts(c, "window/showMessage") {
		if strings.Contains(msg, "the agent is unavailable") {
			t.Errorf("a warning not marked for the user was shown: %q", msg)
		}
	}
	if !slicesContain(messageTexts(c, "window/logMessage"), "the agent is unavailable") {
		t.Errorf("the missing credentials are not in window/logMessage: %q", messageTexts(c, "window/logMessage"))
	}
}

// writeUserSettings writes settings as ~/.gemini/settings.json in home.
func writeUserSettings(t *testing.T, home string, settings map[string]any) {
	t.Helper()
	data, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// slicesContain reports whether any of texts holds part.
func slicesContain(texts []string, part string) bool {
	for _, s := range texts {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}
