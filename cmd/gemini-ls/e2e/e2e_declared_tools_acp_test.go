package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// acpModes are the approval modes an ACP client can choose, as both
// name them.
var acpModes = [...]sdk.SessionModeId{"default", "autoEdit", "yolo", "plan"}

// acpDeclared is what a session of the ACP agent client talks to
// declares to model in each of acpModes, a session each.
func acpDeclared(t *testing.T, ctx context.Context, c *acptest.Client, model *geminitest.Server, cwd string) map[sdk.SessionModeId][]string {
	t.Helper()
	declared := map[sdk.SessionModeId][]string{}
	for _, mode := range acpModes {
		res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatalf("session/new: %v", err)
		}
		if _, err := c.Conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: res.SessionId, ModeId: mode}); err != nil {
			t.Fatalf("session/set_mode %s: %v", mode, err)
		}
		from := len(model.Requests())
		if _, err := c.Conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil {
			t.Fatalf("session/prompt in %s: %v", mode, err)
		}
		declared[mode] = declaredSince(model.Requests(), from)
	}
	return declared
}

// textTurns are n answers of text.
func textTurns(n int) []geminitest.Turn {
	turns := make([]geminitest.Turn, n)
	for i := range turns {
		turns[i] = geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "ok"}}}
	}
	return turns
}

// Over ACP, gemini-ls declares in each approval mode what Gemini CLI
// 0.61's ACP agent (--experimental-acp) declares in that mode, with the
// same home, the task tracker off and on: an interactive session's tools, all but what a policy rule
// denies in the mode, less ask_user, which 0.61 leaves out in ACP
// (gemini.js: isAcpMode) and gemini-ls offers as permission requests
// (docs/acp.md, "Questions"): set aside here, as are oursAlone.
func TestACPDeclaresGeminiCLIsTools(t *testing.T) {
	for _, settings := range []string{"", "tracker"} {
		t.Run("settings "+settings, func(t *testing.T) { compareACPDeclared(t, settings) })
	}
}

// compareACPDeclared compares the tools of both ACP agents in each mode
// with toolsHome's settings.
func compareACPDeclared(t *testing.T, settings string) {
	home := t.TempDir()
	h := startACP(t, acpSetup{home: home, noSession: true}, textTurns(len(acpModes))...)
	writeToolsHome(t, home, h.root, settings, nil)
	ours := acpDeclared(t, h.ctx, h.client, h.model, h.root)

	model := geminitest.NewTestServer(t, textTurns(len(acpModes))...)
	cmd := geminicli.Command(t, home, h.root, model.URL, "--experimental-acp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := acptest.New(t, stdin, stdout, acptest.Config{})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatalf("0.61 initialize: %v", err)
	}
	theirs := acpDeclared(t, ctx, c, model, h.root)

	for _, mode := range acpModes {
		got := slices.DeleteFunc(ours[mode], func(n string) bool { return n == "ask_user" })
		if !slices.Equal(got, theirs[mode]) {
			t.Errorf("%s mode, declared tools:\n 0.61:      %q\n gemini-ls: %q", mode, theirs[mode], got)
		}
	}
}
