package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/ghtask"
	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/github/githubtest"
)

// fakeGitHub is the fakegithub program running against a bare origin,
// with the real gemini-ls as its runner and the fake model behind it:
// what the editor tests start.
type fakeGitHub struct {
	t      *testing.T
	url    string
	origin string
	repo   github.Repo
	client *github.Client
	model  *geminitest.Server
	// logFile holds fakegithub's stderr.
	logFile string
}

const fakeToken = "gho_editor-token-5a1c"

// startFakeGitHub builds fakegithub, makes a bare origin holding main
// and the workflow, and starts fakegithub on it, stopped (SIGTERM) at
// the test's end.
func startFakeGitHub(t *testing.T, model *geminitest.Server) *fakeGitHub {
	t.Helper()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	bin := filepath.Join(base, "fakegithub")
	build := exec.Command("go", "build", "-o", bin, "github.com/gemini-ls/gemini-ls/internal/github/githubtest/cmd/fakegithub")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building fakegithub: %v\n%s", err, out)
	}
	origin := filepath.Join(base, "origin.git")
	gitIn(t, base, "init", "--quiet", "--bare", "--initial-branch=main", origin)
	seed := filepath.Join(base, "seed")
	gitIn(t, base, "clone", "--quiet", origin, seed)
	writeFiles(t, seed, map[string]string{"README.md": "# proj\n", ".github/workflows/gemini-ls.yml": "name: gemini-ls\n"})
	gitIn(t, seed, "add", ".")
	gitIn(t, seed, "commit", "--quiet", "-m", "first")
	gitIn(t, seed, "push", "--quiet", "origin", "HEAD:refs/heads/main")

	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(base, "addr")
	cmd := exec.Command(bin, "-repo", "ada/proj", "-token", fakeToken, "-origin", origin, "-runner", binary, "-addr-file", addrFile)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_API_KEY=" + runnerAPIKey, pinnedModel,
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
	}
	f := &fakeGitHub{t: t, origin: origin, repo: github.Repo{Owner: "ada", Name: "proj"}, model: model, logFile: filepath.Join(base, "fakegithub.log")}
	logOut, err := os.Create(f.logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer logOut.Close() // the child holds its own copy
	cmd.Stderr = logOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("fakegithub ended with %v on SIGTERM", err)
		}
		if t.Failed() {
			t.Logf("fakegithub's log:\n%s", f.log())
		}
	})
	for f.url == "" {
		select {
		case err := <-exited:
			t.Fatalf("fakegithub exited: %v\n%s", err, f.log())
		case <-time.After(20 * time.Millisecond):
		}
		if b, err := os.ReadFile(addrFile); err == nil {
			f.url = strings.TrimSpace(string(b))
		}
	}
	client, err := github.New(f.url, fakeToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.client = client
	return f
}

// log is what fakegithub has logged so far.
func (f *fakeGitHub) log() string {
	b, _ := os.ReadFile(f.logFile)
	return string(b)
}

// state is GET /_fake/state.
func (f *fakeGitHub) state() githubtest.State {
	f.t.Helper()
	resp, err := http.Get(f.url + "/_fake/state")
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	var st githubtest.State
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		f.t.Fatal(err)
	}
	return st
}

// waitRuns waits until n runs are completed and returns them.
func (f *fakeGitHub) waitRuns(n int) []github.Run {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.t.Context(), 120*time.Second)
	defer cancel()
	for {
		st := f.state()
		done := 0
		for _, r := range st.Runs {
			if r.Status == "completed" {
				done++
			}
		}
		if len(st.Runs) >= n && done >= n {
			return st.Runs
		}
		select {
		case <-ctx.Done():
			f.t.Fatalf("waiting for %d runs to complete: %+v", n, st.Runs)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// A dispatch through package github's client reaches fakegithub, which
// plays the runner: the real gemini-ls action pushes gemini/<task> to
// the bare origin holding the model's edit and opens one draft pull
// request through the fake; the run, titled by the task as the
// workflow's run-name titles it, is completed with success and lists the
// session file as its artifact. Then an @gemini-ls comment on that pull
// request runs the action again, on the same branch: a second commit on
// it, the same pull request, and the pull request answered.
func TestFakeGitHubPlaysTheRunner(t *testing.T) {
	model := geminitest.NewTestServer(t,
		call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello from the runner\n"}),
		geminitest.TextTurn("I added hello.txt.\n\nSummary: Add hello.txt with a greeting"),
		call("write_file", map[string]any{"file_path": "bye.txt", "content": "bye\n"}),
		geminitest.TextTurn("I added bye.txt.\n\nSummary: Add bye.txt too"),
	)
	f := startFakeGitHub(t, model)
	ctx := t.Context()
	task := ghtask.Name("Add a hello file\nwith a greeting", "3f9a")
	if err := f.client.DispatchWorkflow(ctx, f.repo, "gemini-ls.yml", "main", map[string]string{"prompt": "Add a hello file\nwith a greeting", "task": task}); err != nil {
		t.Fatal(err)
	}
	runs := f.waitRuns(1)
	run := runs[0]
	if run.Event != "workflow_dispatch" || run.Conclusion != "success" || run.HeadBranch != "main" || run.DisplayTitle != "gemini-ls: add-a-hello-file-3f9a" {
		t.Fatalf("the run is %+v, want a workflow_dispatch on main titled by its task, concluded success", run)
	}
	const branch = "gemini/add-a-hello-file-3f9a"
	if got := gitIn(t, f.origin, "show", branch+":hello.txt"); got != "hello from the runner" {
		t.Errorf("hello.txt on origin's %s is %q", branch, got)
	}
	st := f.state()
	if len(st.Dispatches) != 1 || st.Dispatches[0].RunID != run.ID || st.Dispatches[0].Inputs["task"] != task {
		t.Errorf("dispatches %+v", st.Dispatches)
	}
	if len(st.Pulls) != 1 || !st.Pulls[0].Draft || st.Pulls[0].Head.Ref != branch || st.Pulls[0].Base.Ref != "main" || !strings.Contains(st.Pulls[0].Body, "Add hello.txt with a greeting") {
		t.Fatalf("pulls %+v, want one draft of %s into main", st.Pulls, branch)
	}
	arts, err := f.client.Artifacts(ctx, f.repo, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Name != "gemini-ls-session" || arts[0].SizeInBytes < 10 {
		t.Errorf("the run's artifacts are %+v, want the session file", arts)
	}
	f.followUp(t, branch)
	if strings.Contains(f.log(), runnerAPIKey) {
		t.Errorf("fakegithub's log holds the API key")
	}
}

func (f *fakeGitHub) followUp(t *testing.T, branch string) {
	t.Helper()
	ctx := t.Context()
	first := gitIn(t, f.origin, "rev-parse", branch)
	pr := f.state().Pulls[0]
	if _, err := f.client.CreateComment(ctx, f.repo, pr.Number, "@gemini-ls also add a bye file"); err != nil {
		t.Fatal(err)
	}
	runs := f.waitRuns(2)
	if run := runs[1]; run.Event != "issue_comment" || run.Conclusion != "success" || run.DisplayTitle != "gemini-ls: #1" {
		t.Fatalf("the follow-up's run is %+v", run)
	}
	if got := gitIn(t, f.origin, "rev-list", "--count", first+".."+branch); got != "1" {
		t.Errorf("%s has %s commits past the first run's, want 1", branch, got)
	}
	if got := gitIn(t, f.origin, "show", branch+":bye.txt"); got != "bye" {
		t.Errorf("bye.txt on %s is %q", branch, got)
	}
	if got := gitIn(t, f.origin, "show", branch+":hello.txt"); got != "hello from the runner" {
		t.Errorf("the follow-up lost hello.txt: %q", got)
	}
	if got := strings.Fields(gitIn(t, f.origin, "for-each-ref", "--format=%(refname:short)", "refs/heads")); len(got) != 2 {
		t.Errorf("origin's branches are %q, want main and %s", got, branch)
	}
	st := f.state()
	if len(st.Pulls) != 1 || !strings.Contains(st.Pulls[0].Body, "Add bye.txt too") {
		t.Errorf("pulls %+v, want the one, its body the follow-up's", st.Pulls)
	}
	cs := st.Comments["1"]
	if len(cs) != 2 || cs[1].User.Login != "github-actions[bot]" || !strings.Contains(cs[1].Body, "pushed a commit to "+branch) {
		t.Errorf("the pull request's comments %+v, want the request and the run's answer", cs)
	}
	var prompt string
	for _, req := range f.model.Requests() {
		if got := requestJSON(t, req.Contents); strings.Contains(got, "also add a bye file") {
			prompt = got
			break
		}
	}
	if !strings.Contains(prompt, "follow-up on pull request #1") {
		t.Errorf("the follow-up's prompt does not say it is one:\n%s", prompt)
	}
}
