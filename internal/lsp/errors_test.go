package lsp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// messageTexts are the messages of the client's notifications of method.
func messageTexts(c *lsptest.Client, method string) []string {
	var out []string
	for _, m := range c.Messages(method) {
		var p struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(m.Params, &p)
		out = append(out, p.Message)
	}
	return out
}

// A gemini.prompt the API refuses ends with a window/showMessage whose
// text is a sentence that says what to do, not the SDK's dump.
func TestPromptCommandAPIErrorIsASentence(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	model := geminitest.NewTestServer(t, geminitest.InvalidAPIKey())
	env := platformtest.HomeVars(map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_CLI_TRUST_WORKSPACE": "true"}, t.TempDir())
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir()})
	c := lsptest.New(t, conn, lsptest.Plugin())
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, map[string]any{"model": "gemini-test"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "gemini.prompt", "arguments": []any{map[string]any{"prompt": "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitMessage(ctx, "window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "API key") })
	if err != nil {
		t.Fatalf("no window/showMessage about the key: %v (got %q)", err, messageTexts(c, "window/showMessage"))
	}
	var p struct{ Message string }
	_ = json.Unmarshal(m.Params, &p)
	if !strings.HasPrefix(p.Message, "Gemini: The API key in GEMINI_API_KEY is not valid:") || !strings.Contains(p.Message, "gemini-ls login") {
		t.Errorf("showMessage = %q", p.Message)
	}
	for _, bad := range []string{"map[", "Details: [", "ListModels", "failed: "} {
		if strings.Contains(p.Message, bad) {
			t.Errorf("showMessage %q holds %q", p.Message, bad)
		}
	}
}

// With no credentials, what the editor shows of the server's warnings
// (window/logMessage, window/showMessage) is prose: never zap's encoding
// of its fields (a tab, then {"error": …}).
func TestEditorMessagesAreProse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	env := platformtest.HomeVars(map[string]string{}, t.TempDir())
	conn, _ := lsptest.StartInProcess(t, lsp.Options{Getenv: func(k string) string { return env[k] }, StateDir: t.TempDir(), Logger: zap.NewNop()})
	c := lsptest.New(t, conn, lsptest.Plugin())
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitMessage(ctx, "window/logMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "GEMINI_API_KEY") }); err != nil {
		t.Fatalf("no window/logMessage about the missing key: %v", err)
	}
	var all []string
	all = append(all, messageTexts(c, "window/logMessage")...)
	all = append(all, messageTexts(c, "window/showMessage")...)
	for _, msg := range all {
		if strings.Contains(msg, "\t") || strings.Contains(msg, `{"`) {
			t.Errorf("an editor message holds zap's fields: %q", msg)
		}
	}
	want := "gemini-ls: the agent is unavailable: GEMINI_API_KEY environment variable not found."
	if got := messageTexts(c, "window/logMessage"); len(got) == 0 || !strings.HasPrefix(got[0], want) {
		t.Errorf("window/logMessage = %q, want it to start %q", got, want)
	}
}

// A record whose error is carried as words (a string field "error" or
// "why", as the MCP manager logs a server's failure) shows them in the
// editor, after its message, as a sentence; its other fields stay in the
// log file.
func TestProseCarriesTheErrorsWords(t *testing.T) {
	for _, c := range []struct {
		msg    string
		fields []zapcore.Field
		want   string
	}{
		{"MCP server github failed to start; its tools are unavailable",
			[]zapcore.Field{zap.String("server", "github"), zap.String("error", "exec: \"gh-mcp\": executable file not found in $PATH")},
			"MCP server github failed to start; its tools are unavailable: exec: \"gh-mcp\": executable file not found in $PATH."},
		{"answered a malformed message", []zapcore.Field{zap.Int("code", -32700), zap.String("why", "not JSON")},
			"answered a malformed message: not JSON."},
		{"the agent is unavailable.", []zapcore.Field{zap.Error(errors.New("no key"))}, "the agent is unavailable: no key."},
		{"skipping a file", []zapcore.Field{zap.String("path", "/x")}, "skipping a file."},
	} {
		if got := lsp.Prose(c.msg, c.fields); got != c.want {
			t.Errorf("prose(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}
