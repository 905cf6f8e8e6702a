package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// A server killed (SIGKILL) in the middle of an agent's turn leaves the
// agent resumable: the next server lists it, stopped, with its worktree
// (gemini/agents, and gemini/listSessions naming the worktree), and a
// prompt to its session goes on in the worktree, with what the killed
// turn had done.
func TestAKilledServerLeavesItsAgentsResumable(t *testing.T) {
	root := newRoot(t, map[string]string{"a.txt": "a\n"})
	gitInit(t, root)
	home := t.TempDir()
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	first := start(t, setup{profile: lsptest.NeovimPlugin(), root: root, env: env},
		call("write_file", map[string]any{"file_path": "b.txt", "content": "by the agent\n"}),
		geminitest.Turn{Hang: true})
	go func() {
		var res promptResult
		_ = first.client.Call(first.ctx, "gemini/prompt", map[string]any{"prompt": "Write b.txt", "worktree": "killed"}, &res)
	}()
	if _, err := first.model.WaitRequests(first.ctx, 2); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(root, ".gemini", "worktrees", "killed")
	if got, err := os.ReadFile(filepath.Join(wt, "b.txt")); err != nil || string(got) != "by the agent\n" {
		t.Fatalf("the agent's edit is not in its worktree: %q, %v", got, err)
	}
	if err := first.proc.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = first.proc.Wait(first.ctx)

	next := start(t, setup{profile: lsptest.NeovimPlugin(), root: root, env: env}, geminitest.TextTurn("Resumed."))
	var agents struct {
		Agents []struct {
			SessionID string `json:"sessionId"`
			Title     string `json:"title"`
			State     string `json:"state"`
			Worktree  struct {
				Name string `json:"name"`
				Path string `json:"path"`
			} `json:"worktree"`
		} `json:"agents"`
	}
	if err := next.client.Call(next.ctx, "gemini/agents", nil, &agents); err != nil {
		t.Fatal(err)
	}
	if len(agents.Agents) != 1 {
		t.Fatalf("the next server lists %+v, want the killed agent", agents.Agents)
	}
	a := agents.Agents[0]
	if a.State != "stopped" || a.Worktree.Name != "killed" || a.Worktree.Path != wt || a.SessionID == "" || a.Title != "Write b.txt" {
		t.Errorf("the killed agent is listed as %+v", a)
	}
	var sessions struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Worktree  *struct {
				Name string `json:"name"`
			} `json:"worktree"`
		} `json:"sessions"`
	}
	if err := next.client.Call(next.ctx, "gemini/listSessions", map[string]any{}, &sessions); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range sessions.Sessions {
		found = found || s.SessionID == a.SessionID && s.Worktree != nil && s.Worktree.Name == "killed"
	}
	if !found {
		t.Errorf("gemini/listSessions does not list the agent's session with its worktree: %+v", sessions.Sessions)
	}

	res := next.prompt(map[string]any{"prompt": "go on", "sessionId": a.SessionID})
	if res.StopReason != "end_turn" || res.Text != "Resumed." {
		t.Fatalf("the resumed agent answered %+v", res)
	}
	req := next.model.Requests()[0]
	if !strings.Contains(string(req.Body), "by the agent") || !strings.Contains(string(req.Body), filepath.ToSlash(wt)) {
		t.Errorf("the resumed turn was not the agent's in its worktree: %s", req.Body)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the main tree has b.txt (%v)", err)
	}
}
