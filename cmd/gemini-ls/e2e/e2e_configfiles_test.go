package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Issue 94: last round gemini-ls learned to read .agents/mcp_config.json,
// and the protected set did not learn of it (internal/configfiles now
// declares both). In auto_edit the model wrote it unasked, and the next
// plain session started its server.

// plantedMCP is an Antigravity mcp_config.json naming a server whose
// command leaves marker behind as it starts.
func plantedMCP(t *testing.T, marker string) string {
	t.Helper()
	return mustMarshal(t, map[string]any{"mcpServers": map[string]any{"planted": map[string]any{
		"command": "sh", "args": []string{"-c", `touch "$0" && exec "$1"`, marker, mcpServerBinary(t)},
	}}})
}

// Headless in auto_edit, the write is refused, saying why, and leaves no
// file; the next session, in the default mode, starts no server.
func TestRunAutoEditRefusesAnAgentsMCPConfig(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	h := newHeadless(t, nil,
		call("write_file", map[string]any{"file_path": ".agents/mcp_config.json", "content": plantedMCP(t, marker)}),
		geminitest.TextTurn("Finished."), geminitest.TextTurn("hi"))
	env := append(h.env, trustTheWorkspace()...)
	h.runIn(h.root, env, "run", "-p", "configure", "--approval-mode", "auto_edit").wantExit(t, 0)
	e := responseError(h.responses(1)[0])
	if !strings.HasPrefix(e, "Writing "+h.path(".agents/mcp_config.json")+" needs a person's approval in every approval mode but yolo, because "+h.path(".agents")+" holds the configuration gemini-ls shares with Antigravity") ||
		!strings.HasSuffix(e, protectedRefusal) {
		t.Errorf("refused with %q", e)
	}
	if h.exists(".agents") {
		t.Error("a refused write left .agents behind")
	}
	h.runIn(h.root, env, "run", "-p", "hi").wantExit(t, 0)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the next session started the planted server")
	}
}

// Over ACP in autoEdit, the write asks with no "always"; refused, the
// file is not written, and a session started afterwards starts nothing.
func TestACPAgentsMCPConfigAsksInAutoEdit(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	cfg := editorACP
	cfg.Answer = func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.RejectOnce }
	h := startACP(t, acpSetup{cfg: cfg, env: trustTheWorkspace()},
		call("write_file", map[string]any{"file_path": ".agents/mcp_config.json", "content": plantedMCP(t, marker)}),
		geminitest.TextTurn("done"), geminitest.TextTurn("hi"))
	if _, err := h.client.Conn.SetSessionMode(h.ctx, sdk.SetSessionModeRequest{SessionId: h.session, ModeId: "autoEdit"}); err != nil {
		t.Fatalf("set_mode autoEdit: %v", err)
	}
	h.mustPrompt("configure", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want the .agents edit's", len(perms))
	}
	if tc := perms[0].ToolCall; len(tc.Locations) != 1 || tc.Locations[0].Path != h.path(".agents/mcp_config.json") {
		t.Errorf("the permission request is about %+v", tc.Locations)
	}
	if got := optionKinds(perms[0]); got != "allow_once=proceed_once,reject_once=cancel" {
		t.Errorf("the permission request offers %s, want no always", got)
	}
	if w := h.client.Writes(); len(w) != 0 {
		t.Errorf("written after a no: %+v", w)
	}
	if _, err := os.Stat(h.path(".agents")); err == nil {
		t.Error("a refused write left .agents behind")
	}
	h.restart()
	res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	h.session = res.SessionId
	h.mustPrompt("hi", sdk.StopReasonEndTurn)
	if _, err := os.Stat(marker); err == nil {
		t.Error("a later session started the planted server")
	}
}
