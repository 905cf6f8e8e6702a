package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
	"github.com/gemini-ls/gemini-ls/internal/worktree"
)

// gitRepo is a repository with one commit holding a.txt ("main\n").
func gitRepo(t *testing.T) string {
	t.Helper()
	sandboxtest.NeedGit(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "a.txt"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// worktreeOf is the worktree an answer's _meta names.
func worktreeOf(t *testing.T, res sdk.NewSessionResponse) map[string]any {
	t.Helper()
	ours, _ := res.Meta[metaKey].(map[string]any)
	w, ok := ours["worktree"].(map[string]any)
	if !ok {
		t.Fatalf("session/new's answer names no worktree: %v", res.Meta)
	}
	return w
}

func writeTurn(path, content string) geminitest.Turn {
	return geminitest.CallTurn(&genai.FunctionCall{Name: "write_file", Args: map[string]any{"file_path": path, "content": content}})
}

// Two ACP sessions, each asking session/new's _meta for a worktree of
// its own (a name, and true for a generated one), write the same file
// name differently: each worktree holds its own version on its own
// branch, the main tree is untouched, and each answer's _meta names its
// worktree. A session opened with its cwd in a worktree is told so too.
func TestACPSessionsInWorktreesOfTheirOwn(t *testing.T) {
	repo := gitRepo(t)
	model := geminitest.NewTestServer(t,
		writeTurn("a.txt", "first agent\n"), geminitest.TextTurn("done"),
		writeTurn("a.txt", "second agent\n"), geminitest.TextTurn("done"),
		geminitest.TextTurn("here"))
	env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "key",
		"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_MODEL": "gemini-2.5-pro"}, t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, _ := serveInProcess(ctx, t, env)

	var paths []string
	for _, asked := range []any{"fix-login", true} {
		res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{},
			Meta: map[string]any{metaKey: map[string]any{"worktree": asked}}})
		if err != nil {
			t.Fatalf("session/new with worktree %v: %v", asked, err)
		}
		w := worktreeOf(t, res)
		name, _ := w["name"].(string)
		if asked == "fix-login" && name != "fix-login" || name == "" {
			t.Errorf("asked for %v, got the worktree %v", asked, w)
		}
		path := filepath.Join(repo, ".gemini", "worktrees", name)
		if w["path"] != path || w["branch"] != "worktree-"+name || len(w["base"].(string)) != 40 {
			t.Errorf("the worktree named: %v, want %s on worktree-%s", w, path, name)
		}
		paths = append(paths, path)
		if r, err := c.Conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("write a.txt")}}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt: %+v, %v", r, err)
		}
	}
	for path, want := range map[string]string{
		filepath.Join(repo, "a.txt"):     "main\n",
		filepath.Join(paths[0], "a.txt"): "first agent\n",
		filepath.Join(paths[1], "a.txt"): "second agent\n",
	} {
		if data, err := os.ReadFile(path); err != nil || string(data) != want {
			t.Errorf("%s: %q %v, want %q", path, data, err, want)
		}
	}
	// The worktrees' directory itself is all git sees new in the main
	// tree.
	status := exec.Command("git", "status", "--porcelain")
	status.Dir = repo
	if out, err := status.CombinedOutput(); err != nil || string(out) != "?? .gemini/\n" {
		t.Errorf("the main tree's git status: %q %v", out, err)
	}

	// A session opened in a worktree, its cwd a directory of it.
	sub := filepath.Join(paths[0], "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: sub, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if w := worktreeOf(t, res); w["name"] != "fix-login" || w["path"] != paths[0] {
		t.Errorf("a session opened in fix-login's worktree was told %v", w)
	}
	if res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{}}); err != nil || res.Meta != nil {
		t.Errorf("a session in the main tree: %v %v, want no _meta", res.Meta, err)
	}
}

// A worktree name that would escape .gemini/worktrees, read as an
// option, or that git refuses as a branch, a _meta of the wrong shape,
// and a cwd in no repository are invalid params saying why; nothing is
// made.
func TestACPNewSessionRefusesABadWorktree(t *testing.T) {
	repo := gitRepo(t)
	env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:1", "GEMINI_API_KEY": "key",
		"GEMINI_CLI_TRUST_WORKSPACE": "true"}, t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, _ := serveInProcess(ctx, t, env)
	taken, err := worktree.Create(ctx, repo, "taken", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cwd  string
		meta any
		want string
	}{
		{repo, map[string]any{"worktree": ".."}, `holds ".."`},
		{repo, map[string]any{"worktree": "a/b"}, "path separator"},
		{repo, map[string]any{"worktree": `a\b`}, "path separator"},
		{repo, map[string]any{"worktree": "-rf"}, "option"},
		{repo, map[string]any{"worktree": "a~b"}, "git refuses"},
		{repo, map[string]any{"worktree": "x.lock"}, "git refuses"},
		{repo, map[string]any{"worktree": ""}, "is empty"},
		{repo, map[string]any{"worktree": 3.0}, "must be a name"},
		{repo, "fix", "must be an object"},
		{t.TempDir(), map[string]any{"worktree": "fix"}, "not in a git repository"},
		{repo, map[string]any{"worktree": "taken"}, "already exists"},
	} {
		_, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: tc.cwd, McpServers: []sdk.McpServer{}, Meta: map[string]any{metaKey: tc.meta}})
		var reqErr *sdk.RequestError
		if !errors.As(err, &reqErr) || reqErr.Code != -32602 || !strings.Contains(fmt.Sprint(reqErr.Data), tc.want) {
			t.Errorf("worktree %v in %s: %v, want invalid params saying %q", tc.meta, tc.cwd, err, tc.want)
		}
	}
	if entries, err := os.ReadDir(filepath.Join(repo, worktree.Dir)); err != nil || len(entries) != 1 || entries[0].Name() != taken.Name {
		t.Errorf("after the refusals, .gemini/worktrees holds %v (%v), want the one taken", entries, err)
	}
}
