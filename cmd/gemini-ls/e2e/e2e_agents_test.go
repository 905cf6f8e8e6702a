package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
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

// Under the sandbox an agent writes its own worktree and nothing else:
// not the main tree, not another agent's worktree, not the repository's
// .git beyond its own worktree's files.
func TestASandboxedAgentWritesOnlyItsWorktree(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	root := newRoot(t, map[string]string{"a.txt": "a\n"})
	gitInit(t, root)
	other := filepath.Join(root, ".gemini", "worktrees", "other")
	for _, args := range [][]string{{"worktree", "add", "-q", "-b", "worktree-other", other}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	attempts := strings.Join([]string{
		"echo own > own.txt",
		"echo x > " + filepath.Join(root, "main.txt"),
		"echo x > " + filepath.Join(other, "x.txt"),
		"echo x >> " + filepath.Join(root, ".git", "config"),
		"echo x > " + filepath.Join(root, ".git", "hooks", "post-checkout"),
		"git status --short",
	}, "; ")
	h := start(t, setup{profile: lsptest.NeovimPlugin(), root: root, env: []string{"HOME=" + shellAllowedHome(t), "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_SANDBOX=true"}},
		shellCall(attempts, nil), geminitest.TextTurn("Done."))
	configBefore, _ := os.ReadFile(filepath.Join(root, ".git", "config"))
	res := h.prompt(map[string]any{"prompt": "try", "worktree": "boxed"})
	if res.StopReason != "end_turn" {
		t.Fatalf("the agent ended %+v", res)
	}
	wt := filepath.Join(root, ".gemini", "worktrees", "boxed")
	if got, err := os.ReadFile(filepath.Join(wt, "own.txt")); err != nil || string(got) != "own\n" {
		t.Errorf("the agent could not write its own worktree: %q, %v", got, err)
	}
	for _, p := range []string{filepath.Join(root, "main.txt"), filepath.Join(other, "x.txt"), filepath.Join(root, ".git", "hooks", "post-checkout")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("the sandboxed agent wrote %s (%v)", p, err)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(after) != string(configBefore) {
		t.Errorf("the sandboxed agent changed .git/config")
	}
	reqs := h.model.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), "Read-only file system") {
		t.Fatalf("the model was not told the writes failed")
	}
	// git works in the worktree, its repository visible (read-only) even
	// where it lies under the sandbox's private /tmp.
	if body := string(reqs[1].Body); strings.Contains(body, "not a git repository") || !strings.Contains(body, "?? own.txt") {
		t.Errorf("git status did not work in the sandboxed worktree: %s", body)
	}
}
