package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// The settings keys nothing reads are told once per process, as a note
// in the first session that reads them; a second session does not
// repeat it.
func TestACPUnreadSettingsAreNotedOnce(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": unreadSettings})
	h := startACP(t, acpSetup{home: home, env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}})
	first := h.session
	h.client.Wait(h.ctx, "the note", func(c *acptest.Client) bool {
		return strings.Contains(c.MessageText(first), "does not implement")
	})
	wantEachNamedOnce(t, h.client.MessageText(first), filepath.Join(home, ".gemini", "settings.json"))

	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// The second session's commands are announced after any note would be.
	h.client.Wait(h.ctx, "the second session's commands", func(c *acptest.Client) bool {
		for _, u := range c.Updates() {
			if u.SessionId == res.SessionId && u.Update.AvailableCommandsUpdate != nil {
				return true
			}
		}
		return false
	})
	if text := h.client.MessageText(res.SessionId); strings.Contains(text, "does not implement") {
		t.Errorf("the second session noted the keys again: %q", text)
	}
}

// session/new's additionalDirectories are roots of the session: a file
// in one is read, one beside it is refused; the capability is
// advertised, and a relative directory is refused.
func TestACPAdditionalDirectories(t *testing.T) {
	h := startACP(t, acpSetup{noSession: true})
	init, err := h.client.Initialize(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if init.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		t.Error("sessionCapabilities.additionalDirectories is not advertised")
	}
	parent := filepath.Dir(h.root)
	lib, out := filepath.Join(parent, "lib"), filepath.Join(parent, "out")
	writeFiles(t, lib, map[string]string{"x.go": "package x\n"})
	writeFiles(t, out, map[string]string{"secret.txt": "secret\n"})
	if _, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, AdditionalDirectories: []string{"lib"}, McpServers: []sdk.McpServer{}}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative additional directory: %v, want it refused", err)
	}
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, AdditionalDirectories: []string{lib}, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.session = res.SessionId
	h.model.Push(geminitest.Turn{Chunks: []geminitest.Chunk{
		{Call: geminitest.Call("read_file", map[string]any{"path": filepath.Join(lib, "x.go")})},
		{Call: geminitest.Call("read_file", map[string]any{"path": filepath.Join(out, "secret.txt")})},
	}}, geminitest.TextTurn("done"))
	h.mustPrompt("read", sdk.StopReasonEndTurn)
	fr := h.functionResponses(1)
	if len(fr) != 2 {
		t.Fatalf("%d function responses, want 2: %v", len(fr), fr)
	}
	if got, _ := fr[0]["output"].(string); got != "package x\n" {
		t.Errorf("read_file in the additional directory = %v", fr[0])
	}
	if e, _ := fr[1]["error"].(string); !strings.Contains(e, "within one of the workspace directories") {
		t.Errorf("read_file beside it = %v, want it refused", fr[1])
	}
}
