package e2e

import (
	"os"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
)

// Over ACP, after a restart: "/rewind 1 both" in a loaded session asks
// about the file the user changed (declined: a conflict, kept), asks ONE
// permission for the revert of the other, writes its exact original bytes
// (BOM and CRLF) and removes the prompts: the model's next request lacks
// them.
func TestACPRewindAfterARestart(t *testing.T) {
	home := t.TempDir()
	cfg := acptest.Config{Answer: func(p sdk.RequestPermissionRequest) acptest.Answer {
		if p.ToolCall.Title != nil && strings.Contains(*p.ToolCall.Title, "anyway") {
			return acptest.RejectOnce // keep the user's change
		}
		return acptest.AllowOnce
	}}
	h := startACP(t, acpSetup{files: map[string]string{"a.txt": rewindA, "b.txt": rewindB}, home: home, cfg: cfg}, rewindTurns("a.txt", "b.txt")...)
	for _, p := range []string{"first", "second", "third"} {
		h.mustPrompt(p, sdk.StopReasonEndTurn)
	}
	h.wantDisk("a.txt", "\ufeffONE\r\nTWO\r\n")
	if err := os.WriteFile(h.path("b.txt"), []byte("the user's b\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	id := h.session
	_ = h.proc.Close()
	if _, err := h.proc.Wait(h.ctx); err != nil {
		t.Fatalf("the first server did not exit: %v", err)
	}
	h.connect(acpSetup{noSession: true, cfg: cfg})
	if _, err := h.client.Conn.LoadSession(h.ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: h.root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	h.session = id

	list := h.command("/rewind")
	if !strings.Contains(list, "2. second — changed `"+h.path("b.txt")+"`") {
		t.Errorf("/rewind answered %q", list)
	}
	asked := len(h.client.Permissions())
	msg := h.command("/rewind 1 both")
	h.wantDisk("a.txt", rewindA)
	h.wantDisk("b.txt", "the user's b\n")
	for _, want := range []string{"3 prompts removed", "`" + h.path("a.txt") + "`: reverted", "`" + h.path("b.txt") + "`: conflict, not reverted"} {
		if !strings.Contains(msg, want) {
			t.Errorf("/rewind 1 both answered %q, want %q", msg, want)
		}
	}
	var titles []string
	for _, p := range h.client.Permissions()[asked:] {
		titles = append(titles, *p.ToolCall.Title)
	}
	if len(titles) != 2 || !strings.Contains(titles[0], "b.txt") || !strings.HasPrefix(titles[1], "Revert the agent's changes since prompt 1 (1 file)") {
		t.Errorf("permission requests %q, want the conflict's, then one for the revert", titles)
	}

	h.mustPrompt("again", sdk.StopReasonEndTurn)
	reqs := h.model.Requests()
	if got := wholeTexts(reqs[len(reqs)-1].Contents); len(got) != 1 || got[0] != "user: again" {
		t.Errorf("the request after the rewind holds %q, want only the new prompt", got)
	}
}
