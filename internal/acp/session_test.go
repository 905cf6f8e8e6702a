package acp

import (
	"context"
	"slices"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// Sessions of one credential reach the model over one connection; a
// session of another key (authenticate's) gets its own, and each
// session's requests carry its own key. A session's close leaves a
// connection another session still uses open, and the last one's closes
// it at once, not after the idle timeout; so does the connection's end.
func TestSessionsShareTheModelConnectionPerCredential(t *testing.T) {
	model := geminitest.NewTestServer(t, geminitest.TextTurn("a"), geminitest.TextTurn("b"), geminitest.TextTurn("c"), geminitest.TextTurn("d"), geminitest.TextTurn("e"))
	env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "key-1",
		"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_MODEL": "gemini-2.5-pro"}, t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, stop := serveInProcess(ctx, t, env)
	root := t.TempDir()
	open := func() sdk.SessionId {
		t.Helper()
		res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := c.Conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt: %+v, %v", r, err)
		}
		return res.SessionId
	}
	closeSession := func(id sdk.SessionId) {
		t.Helper()
		if _, err := c.Conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: id}); err != nil {
			t.Fatal(err)
		}
	}
	first, second := open(), open()
	if n := model.Connections().Opened; n != 1 {
		t.Errorf("two sessions of one key opened %d model connections, want 1", n)
	}
	if _, err := c.Conn.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "gemini-api-key", Meta: map[string]any{"api-key": "key-2"}}); err != nil {
		t.Fatal(err)
	}
	third, fourth := open(), open()
	if n := model.Connections().Opened; n != 2 {
		t.Errorf("two sessions of another key: %d model connections in all, want 2", n)
	}
	var keys []string
	for _, r := range model.Requests() {
		keys = append(keys, r.APIKey)
	}
	if want := []string{"key-1", "key-1", "key-2", "key-2"}; !slices.Equal(keys, want) {
		t.Errorf("the requests carried keys %q, want %q", keys, want)
	}

	closeSession(first)
	closeSession(third)
	waitCtx, waitCancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer waitCancel()
	if conns, _ := model.WaitConnectionsClosed(waitCtx, 1); conns.Closed != 0 {
		t.Errorf("%d model connections closed while each key's other session lives", conns.Closed)
	}
	closeSession(second)
	closeSession(fourth)
	// Well within the transport's 90 s idle timeout.
	waitCtx, waitCancel = context.WithTimeout(ctx, 5*time.Second)
	defer waitCancel()
	if conns, err := model.WaitConnectionsClosed(waitCtx, 2); err != nil {
		t.Errorf("after the last sessions closed: %v", err)
	} else if conns.Closed != 2 {
		t.Errorf("%d model connections closed after every session did, want 2", conns.Closed)
	}

	// The connection's end closes its sessions' too.
	open()
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if conns, err := model.WaitConnectionsClosed(waitCtx, 3); err != nil {
		t.Errorf("after the connection ended: %v", err)
	} else if conns.Opened != 3 {
		t.Errorf("%d model connections opened, want 3", conns.Opened)
	}
}
