package e2e

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// fdSlack is how many more files the server may hold open after the
// sessions than before them, for what is opened on first use and kept
// (none was, when this was written: 10 before, 10 after); one model
// connection left open per session, the fault this test catches, is 50.
const fdSlack = 5

// Sessions opened, prompted and closed leave nothing open behind them:
// 50 of them with the same key leave the server's open files where they
// were before the first, right after the last closes (not after the
// transport's 90 s idle timeout).
func TestACPClosedSessionsLeaveNoConnections(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the server's open files are counted in /proc/PID/fd, which only Linux has")
	}
	const sessions = 50
	turns := make([]geminitest.Turn, sessions)
	for i := range turns {
		turns[i] = geminitest.TextTurn(fmt.Sprintf("Answer %d.", i))
	}
	h := startACP(t, acpSetup{noSession: true}, turns...)
	pid := h.proc.Cmd.Process.Pid
	before := openFiles(t, pid)
	for i := range sessions {
		res, err := h.client.Conn.NewSession(h.ctx, sdk.NewSessionRequest{Cwd: h.root, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatalf("session/new %d: %v", i, err)
		}
		h.session = res.SessionId
		h.mustPrompt("hi", sdk.StopReasonEndTurn)
		if _, err := h.client.Conn.CloseSession(h.ctx, sdk.CloseSessionRequest{SessionId: h.session}); err != nil {
			t.Fatalf("session/close %d: %v", i, err)
		}
	}
	if n := len(h.model.Requests()); n < sessions {
		t.Fatalf("%d model requests, want one per session (%d)", n, sessions)
	}
	after := openFiles(t, pid)
	t.Logf("open files: %d before the sessions, %d after", before, after)
	if after > before+fdSlack {
		t.Errorf("the server holds %d open files after %d sessions closed, %d before them (slack %d)", after, sessions, before, fdSlack)
	}
}

// openFiles is how many files process pid holds open.
func openFiles(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("counting the server's open files: %v", err)
	}
	return len(fds)
}
