package acp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// A prompt the API refuses fails with an error whose message is a
// sentence that says what to do: not the SDK's dump of the API's status
// nor its advice to call ListModels.
func TestPromptAPIErrorIsASentence(t *testing.T) {
	for _, c := range []struct {
		name string
		turn geminitest.Turn
		says string
		kind string
	}{
		{"invalid key", geminitest.InvalidAPIKey(), "GEMINI_API_KEY is not valid", "invalid_api_key"},
		{"unknown model", geminitest.ModelNotFound("gemini-9-ultra"), "The model gemini-9-ultra does not exist", "unknown_model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := geminitest.NewTestServer(t, c.turn)
			home, root := t.TempDir(), t.TempDir()
			env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "test-key", "GEMINI_CLI_TRUST_WORKSPACE": "true",
				"GEMINI_MODEL": "gemini-2.5-pro"}, home)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cl, stop := serveInProcess(ctx, t, env)
			res, err := cl.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
			var re *sdk.RequestError
			if !errors.As(err, &re) {
				t.Fatalf("prompt: %v, want a request error", err)
			}
			if !strings.Contains(re.Message, c.says) {
				t.Errorf("the error's message %q does not say %q", re.Message, c.says)
			}
			// The kind, for a client to offer the fix from.
			if data, _ := re.Data.(map[string]any); data["errorKind"] != c.kind {
				t.Errorf("the error's data %v, want errorKind %q", re.Data, c.kind)
			}
			for _, bad := range []string{"map[", "Details: [", "ListModels"} {
				if strings.Contains(re.Message, bad) || strings.Contains(re.Error(), bad) {
					t.Errorf("the error %v holds %q", re.Error(), bad)
				}
			}
			if err := stop(); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
}

// serveInProcess serves ACP in this process (so the race detector sees
// it) to an initialized client, with env as the environment; stop ends
// the connection and returns what Serve did.
func serveInProcess(ctx context.Context, t *testing.T, env map[string]string) (c *acptest.Client, stop func() error) {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, serverIn, serverOut, Options{Getenv: func(k string) string { return env[k] }, Version: "test"})
	}()
	c = acptest.New(t, clientOut, clientIn, acptest.Config{})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	return c, func() error {
		_ = clientOut.Close()
		return <-served
	}
}
