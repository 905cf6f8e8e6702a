package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// userClone is the user's repository: a clone of the fake's origin
// (origin its bare path), symlinks resolved, and the environment that
// names the fake as GitHub for it: GITHUB_TOKEN the user's token, and a
// PATH whose gh has none (a developer's own gh login would come first).
func userClone(t *testing.T, f *fakeGitHub) (dir string, env []string) {
	t.Helper()
	dir = filepath.Join(newRoot(t, nil), "proj")
	gitIn(t, filepath.Dir(dir), "clone", "--quiet", f.origin, dir)
	gh := t.TempDir()
	if err := os.WriteFile(filepath.Join(gh, "gh"), []byte("#!/bin/sh\necho 'not logged in' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"GITHUB_REPOSITORY=ada/proj", "GITHUB_API_URL=" + f.url, "GITHUB_TOKEN=" + fakeToken,
		"PATH=" + gh + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// runnerTurns are what the runner's agent answers: hello.txt written,
// then its summary line.
func runnerTurns() []geminitest.Turn {
	return []geminitest.Turn{
		call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello from GitHub\n"}),
		geminitest.TextTurn("I added hello.txt.\n\nSummary: Add hello.txt"),
	}
}

// gemini-ls delegate: the prompt reaches the fake's dispatch endpoint
// with the user's token, the real gemini-ls action plays the run, and
// the pull request's branch comes back into a worktree of its own: the
// user's tree untouched.
func TestDelegateStartsARunAndFetchesItsPullRequest(t *testing.T) {
	model := geminitest.NewTestServer(t, runnerTurns()...)
	f := startFakeGitHub(t, model)
	dir, env := userClone(t, f)

	cmd := exec.Command(binary, "delegate", "-p", "Add hello.txt saying hello", "-C", dir)
	cmd.Env = append([]string{"HOME=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("delegate: %v\nstdout: %s\nstderr: %s\nfakegithub: %s", err, stdout.String(), stderr.String(), f.log())
	}
	st := f.state()
	if len(st.Dispatches) != 1 {
		t.Fatalf("dispatches %+v, want one", st.Dispatches)
	}
	d := st.Dispatches[0]
	task := d.Inputs["task"]
	if d.Inputs["prompt"] != "Add hello.txt saying hello" || !regexp.MustCompile(`^add-hello-txt-saying-hello-[0-9a-f]{4}$`).MatchString(task) || d.Inputs["base"] != "main" || d.Ref != "main" {
		t.Fatalf("the dispatch is %+v, want the prompt, a task named from it and main", d)
	}
	// The fake answers 401 to any other token: the dispatch carried
	// the user's (GITHUB_TOKEN).
	if len(st.Pulls) != 1 || st.Pulls[0].Head.Ref != "gemini/"+task {
		t.Fatalf("pulls %+v, want one of gemini/%s", st.Pulls, task)
	}
	if !strings.Contains(stdout.String(), "Pull request #"+itoa(st.Pulls[0].Number)) || !strings.Contains(stderr.String(), "done: ") {
		t.Errorf("delegate said:\n%s\n%s", stdout.String(), stderr.String())
	}
	wt := filepath.Join(dir, ".gemini", "worktrees", task)
	if b, err := os.ReadFile(filepath.Join(wt, "hello.txt")); err != nil || string(b) != "hello from GitHub\n" {
		t.Errorf("hello.txt in the fetched worktree: %q, %v", b, err)
	}
	if branch := gitIn(t, wt, "rev-parse", "--abbrev-ref", "HEAD"); branch != "gemini/"+task {
		t.Errorf("the worktree is on %s", branch)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); !os.IsNotExist(err) {
		t.Errorf("hello.txt reached the user's tree before any review: %v", err)
	}
	if strings.Contains(stdout.String()+stderr.String(), fakeToken) {
		t.Error("delegate printed the token")
	}
}

// With no token anywhere, delegate says how to give one and dispatches
// nothing.
func TestDelegateWithoutATokenSaysHowToGiveOne(t *testing.T) {
	f := startFakeGitHub(t, geminitest.NewTestServer(t))
	dir, env := userClone(t, f)
	cmd := exec.Command(binary, "delegate", "-p", "Anything", "-C", dir)
	// No GITHUB_TOKEN, and a gh that has no login.
	cmd.Env = append([]string{"HOME=" + t.TempDir()}, env[0], env[1], env[3])
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "gh auth login") || !strings.Contains(string(out), "GITHUB_TOKEN") {
		t.Errorf("delegate without a token: %v\n%s", err, out)
	}
	if st := f.state(); len(st.Dispatches) != 0 {
		t.Errorf("dispatched %+v without a token", st.Dispatches)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// agentNote is a gemini/agent notification's params, as the editors read
// them.
type agentNote struct {
	Kind       string `json:"kind"`
	SessionID  string `json:"sessionId"`
	Title      string `json:"title"`
	State      string `json:"state"`
	Error      string `json:"error"`
	Background *struct {
		ID          string `json:"id"`
		RunURL      string `json:"runUrl"`
		Branch      string `json:"branch"`
		PullRequest *struct {
			Number int    `json:"number"`
			URL    string `json:"url"`
		} `json:"pullRequest"`
	} `json:"background"`
	Worktree *struct {
		Name string `json:"name"`
		Path string `json:"path"`
	} `json:"worktree"`
	Files []struct {
		Path   string `json:"path"`
		Status string `json:"status"`
	} `json:"files"`
}

// The editor's road: gemini/delegate answers at once with the agent
// queued; gemini/agent tells it working, then done with its pull
// request, worktree and files; gemini/landAgent reviews it into the
// user's tree as a local agent's work; a follow-up comments @gemini-ls
// on the pull request, which runs again on the same branch, and the
// worktree follows.
func TestBackgroundAgentFromTheEditor(t *testing.T) {
	model := geminitest.NewTestServer(t, append(runnerTurns(),
		call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello again from GitHub\n"}),
		geminitest.TextTurn("Done.\n\nSummary: Say hello again"))...)
	f := startFakeGitHub(t, model)
	dir, env := userClone(t, f)
	h := start(t, setup{profile: lsptest.NeovimPlugin(), root: dir, env: append(env, "GEMINI_CLI_TRUST_WORKSPACE=true")},
		geminitest.TextTurn("Going on here."))

	var queued agentNote
	if err := h.client.Call(h.ctx, "gemini/delegate", map[string]any{"prompt": "Add hello.txt"}, &queued); err != nil {
		t.Fatal(err)
	}
	if queued.Kind != "background" || queued.State != "queued" || queued.Background == nil || queued.Worktree != nil || !strings.HasPrefix(queued.Background.ID, "bg-add-hello-txt-") {
		t.Fatalf("gemini/delegate answered %+v", queued)
	}
	id := queued.Background.ID
	done := waitAgent(t, h, func(a agentNote) bool {
		return a.Background != nil && a.Background.ID == id && a.State == "done" && a.Worktree != nil
	})
	if done.Background.PullRequest == nil || done.Background.RunURL == "" || len(done.Files) != 1 || done.Files[0].Path != "hello.txt" || done.Files[0].Status != "added" {
		t.Fatalf("the done agent is %+v", done)
	}
	if !seenAgentState(h, id, "working") {
		t.Errorf("no gemini/agent said the run was working")
	}
	if _, err := h.client.WaitMessage(h.ctx, "window/showMessage", func(raw json.RawMessage) bool {
		return strings.Contains(string(raw), "is done: pull request #")
	}); err != nil {
		t.Errorf("no message told the user it was done: %v", err)
	}
	// The same review as a local agent's: one edit of the user's tree.
	var landed struct {
		Applied bool `json:"applied"`
	}
	if err := h.client.Call(h.ctx, "gemini/landAgent", map[string]any{"worktree": done.Worktree.Name}, &landed); err != nil || !landed.Applied {
		t.Fatalf("landing: %+v, %v", landed, err)
	}
	// The editor holds the landed text, to save as the user saves.
	if got, _ := h.client.Buffer(filepath.Join(dir, "hello.txt")); got != "hello from GitHub\n" {
		t.Errorf("hello.txt in the editor after landing: %q", got)
	}

	// The run's session came back with its work: the user goes on with
	// it here, in the worktree, the runner's turns in its history.
	if done.SessionID == "" {
		t.Fatalf("the done agent has no session: %+v", done)
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	if err := h.client.Call(h.ctx, "gemini/prompt", map[string]any{"sessionId": done.SessionID, "prompt": "What did you do?"}, &res); err != nil || res.StopReason != "end_turn" {
		t.Fatalf("prompting the run's session here: %+v, %v", res, err)
	}
	reqs, err := h.model.WaitRequests(h.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "Summary: Add hello.txt") || !strings.Contains(body, "What did you do?") || !strings.Contains(body, done.Worktree.Path) {
		t.Errorf("the local turn's request does not carry the runner's history in the worktree:\n%.2000s", body)
	}

	// A follow-up goes back as a comment; the run on the same branch
	// moves the worktree on.
	var again agentNote
	if err := h.client.Call(h.ctx, "gemini/followUpAgent", map[string]any{"id": id, "prompt": "Say hello again"}, &again); err != nil || again.State != "queued" {
		t.Fatalf("follow-up: %+v, %v", again, err)
	}
	comments := f.state().Comments[itoa(done.Background.PullRequest.Number)]
	if len(comments) == 0 || comments[0].Body != "@gemini-ls Say hello again" {
		t.Errorf("the pull request's comments are %+v", comments)
	}
	skip := len(h.client.Messages("gemini/agent"))
	waitAgentAfter(t, h, skip, func(a agentNote) bool { return a.Background != nil && a.Background.ID == id && a.State == "done" })
	if b, _ := os.ReadFile(filepath.Join(done.Worktree.Path, "hello.txt")); string(b) != "hello again from GitHub\n" {
		t.Errorf("hello.txt in the worktree after the follow-up: %q", b)
	}
	if n := len(f.state().Pulls); n != 1 {
		t.Errorf("%d pull requests, want the one updated", n)
	}
	// The commenter's login reaches the runner's agent as a name, not as
	// an @ reference to a file.
	if strings.Contains(f.log(), "was not attached") {
		t.Errorf("the runner's prompt held an @ the agent took for a file:\n%s", f.log())
	}
}

func waitAgent(t *testing.T, h *harness, ok func(agentNote) bool) agentNote {
	t.Helper()
	return waitAgentAfter(t, h, 0, ok)
}

func waitAgentAfter(t *testing.T, h *harness, skip int, ok func(agentNote) bool) agentNote {
	t.Helper()
	var got agentNote
	_, err := h.client.WaitMessageAfter(h.ctx, "gemini/agent", skip, func(raw json.RawMessage) bool {
		var a agentNote
		if json.Unmarshal(raw, &a) != nil || !ok(a) {
			return false
		}
		got = a
		return true
	})
	if err != nil {
		var seen []string
		for _, m := range h.client.Messages("gemini/agent") {
			seen = append(seen, string(m.Params))
		}
		t.Fatalf("waiting for an agent: %v; gemini/agent said:\n%s", err, strings.Join(seen, "\n"))
	}
	return got
}

func seenAgentState(h *harness, id, state string) bool {
	for _, m := range h.client.Messages("gemini/agent") {
		var a agentNote
		if json.Unmarshal(m.Params, &a) == nil && a.Background != nil && a.Background.ID == id && a.State == state {
			return true
		}
	}
	return false
}
