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
	f := &fakeGitHub{t: t, origin: origin, repo: github.Repo{Owner: "ada", Name: "proj"}, logFile: filepath.Join(base, "fakegithub.log")}
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
// request through the fake; the run is queued, then completed with
// success, and lists the session file as its artifact.
func TestFakeGitHubPlaysTheRunner(t *testing.T) {
	model := geminitest.NewTestServer(t,
		call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello from the runner\n"}),
		geminitest.TextTurn("I added hello.txt.\n\nSummary: Add hello.txt with a greeting"),
	)
	f := startFakeGitHub(t, model)
	ctx := t.Context()
	if err := f.client.DispatchWorkflow(ctx, f.repo, "gemini-ls.yml", "main", map[string]string{"prompt": "Add a hello file"}); err != nil {
		t.Fatal(err)
	}
	runs := f.waitRuns(1)
	run := runs[0]
	if run.Event != "workflow_dispatch" || run.Conclusion != "success" || run.HeadBranch != "main" {
		t.Fatalf("the run is %+v, want a workflow_dispatch on main concluded success", run)
	}
	const branch = "gemini/add-a-hello-file"
	if got := gitIn(t, f.origin, "show", branch+":hello.txt"); got != "hello from the runner" {
		t.Errorf("hello.txt on origin's %s is %q", branch, got)
	}
	st := f.state()
	if len(st.Dispatches) != 1 || st.Dispatches[0].RunID != run.ID || st.Dispatches[0].Inputs["prompt"] != "Add a hello file" {
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
	if strings.Contains(f.log(), runnerAPIKey) {
		t.Errorf("fakegithub's log holds the API key")
	}
}
