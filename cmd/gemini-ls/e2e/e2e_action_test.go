package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/github/githubtest"
)

// The secrets of a runner, distinct enough to be searched for.
const (
	runnerAPIKey = "AIzaSy-runner-secret-key-4f7c2a"
	runnerToken  = "ghs_runner-token-9b1e5d"
)

// runner is a GitHub Actions runner made of local parts: a bare
// repository as origin, a clone of it as GITHUB_WORKSPACE, the fake
// GitHub API and the fake model.
type runner struct {
	t                      *testing.T
	origin, workspace, tmp string
	home                   string
	gh                     *githubtest.Server
	model                  *geminitest.Server
	event, output, summary string
}

func newRunner(t *testing.T, turns ...geminitest.Turn) *runner {
	t.Helper()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	r := &runner{
		t: t, origin: filepath.Join(base, "origin.git"), workspace: filepath.Join(base, "workspace"),
		tmp: filepath.Join(base, "runner-temp"), home: filepath.Join(base, "home"),
		gh: githubtest.New(t, "octo/repo", runnerToken), model: geminitest.NewTestServer(t, turns...),
		event: filepath.Join(base, "event.json"), output: filepath.Join(base, "output"), summary: filepath.Join(base, "summary.md"),
	}
	for _, d := range []string{r.tmp, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, base, "init", "--quiet", "--bare", "--initial-branch=main", r.origin)
	seed := filepath.Join(base, "seed")
	gitIn(t, base, "clone", "--quiet", r.origin, seed)
	writeFiles(t, seed, map[string]string{"README.md": "# repo\n", ".github/workflows/ci.yml": "on: push\n"})
	gitIn(t, seed, "add", ".")
	gitIn(t, seed, "commit", "--quiet", "-m", "first")
	gitIn(t, seed, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	gitIn(t, base, "clone", "--quiet", "--branch", "main", r.origin, r.workspace)
	return r
}

// run runs gemini-ls action for the event named with payload.
func (r *runner) run(name string, payload any, args ...string) cliResult {
	r.t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(r.event, b, 0o644); err != nil {
		r.t.Fatal(err)
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + r.home, "XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"),
		"GOOGLE_GEMINI_BASE_URL=" + r.model.URL, "GEMINI_API_KEY=" + runnerAPIKey, pinnedModel,
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GITHUB_ACTIONS=true", "GITHUB_SHA=0123456789abcdef", "GITHUB_EVENT_NAME=" + name, "GITHUB_EVENT_PATH=" + r.event,
		"GITHUB_REPOSITORY=octo/repo", "GITHUB_API_URL=" + r.gh.URL, "GITHUB_TOKEN=" + runnerToken,
		"GITHUB_OUTPUT=" + r.output, "GITHUB_STEP_SUMMARY=" + r.summary, "RUNNER_TEMP=" + r.tmp,
		"GITHUB_WORKSPACE=" + r.workspace, "GITHUB_REF_NAME=main",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"action"}, args...)...)
	cmd.Dir, cmd.Env = r.workspace, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		res.code = exit.ExitCode()
	} else if err != nil {
		r.t.Fatalf("gemini-ls action: %v\nstderr:\n%s", err, stderr.String())
	}
	return res
}

func (r *runner) read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	return string(b)
}

// outputs are the step's outputs, as GITHUB_OUTPUT holds them.
func (r *runner) outputs() map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(r.read(r.output), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// originBranches are the branches the bare origin holds.
func (r *runner) originBranches() string {
	return gitIn(r.t, r.origin, "for-each-ref", "--format=%(refname:short)", "refs/heads")
}

func dispatch(prompt string) map[string]any {
	return map[string]any{"inputs": map[string]any{"prompt": prompt}, "repository": map[string]any{"default_branch": "main"}, "sender": map[string]any{"login": "maintainer"}}
}

// A workflow_dispatch runs the agent on gemini/<task>: its edit is
// committed with its summary line and pushed to origin, one draft pull
// request is opened with the summary, the files and the turns and tokens;
// the outputs and the step summary say so; the session file is kept in
// RUNNER_TEMP, and a local clone continues the session from it with
// `gemini-ls run --resume FILE`. The API key is in none of it.
func TestActionDispatchCommitsPushesAndOpensADraft(t *testing.T) {
	r := newRunner(t,
		call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello from the runner\n"}),
		geminitest.TextTurn("I added hello.txt.\n\nSummary: Add hello.txt with a greeting"),
		geminitest.TextTurn("Still here."),
	)
	res := r.run("workflow_dispatch", dispatch("Add a hello file"))
	res.wantExit(t, 0)

	const branch = "gemini/add-a-hello-file"
	if got := r.originBranches(); !strings.Contains(got, branch) {
		t.Fatalf("origin's branches are %q, want %s", got, branch)
	}
	if got := gitIn(t, r.origin, "show", branch+":hello.txt"); got != "hello from the runner" {
		t.Errorf("hello.txt on origin's %s is %q", branch, got)
	}
	subject := (gitIn(t, r.origin, "log", "-1", "--format=%s%n%an <%ae>", branch))
	if want := "Add hello.txt with a greeting\ngithub-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"; subject != want {
		t.Errorf("the commit is %q, want %q", subject, want)
	}
	if n := gitIn(t, r.origin, "rev-list", "--count", "main.."+branch); n != "1" {
		t.Errorf("%s is %s commits ahead of main, want 1", branch, n)
	}

	prs := r.gh.PullRequests()
	if len(prs) != 1 {
		t.Fatalf("pull requests: %+v, want one", prs)
	}
	pr := prs[0]
	if !pr.Draft || pr.Head.Ref != branch || pr.Base.Ref != "main" || pr.Title != "Add hello.txt with a greeting" {
		t.Errorf("the pull request is %+v", pr)
	}
	for _, want := range []string{"**Summary:** Add hello.txt with a greeting", "I added hello.txt.", "added `hello.txt`", "**Turns:** 2", "total", "--resume"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("the pull request's body lacks %q:\n%s", want, pr.Body)
		}
	}
	out := r.outputs()
	if out["pr-url"] != pr.HTMLURL || out["branch"] != branch || out["session-file"] == "" {
		t.Errorf("outputs %q", out)
	}
	if !strings.HasPrefix(out["session-file"], filepath.Join(r.tmp, "gemini-ls-session")+string(filepath.Separator)) {
		t.Errorf("the session file %q is not in RUNNER_TEMP/gemini-ls-session", out["session-file"])
	}
	summary := r.read(r.summary)
	if !strings.Contains(summary, pr.HTMLURL) || !strings.Contains(summary, "**Turns:** 2") {
		t.Errorf("the step summary:\n%s", summary)
	}
	if !strings.Contains(res.stdout, "::add-mask::"+runnerAPIKey+"\n") || !strings.HasPrefix(res.stdout, "::add-mask::") {
		t.Errorf("stdout does not mask the key first:\n%s", res.stdout)
	}

	// Nothing but the mask holds the key: the log, the commit, the pull
	// request, the step summary, the outputs, the session file.
	session := r.read(out["session-file"])
	if !strings.Contains(session, "Add a hello file") {
		t.Fatalf("the session file lacks the task:\n%s", session)
	}
	wantNoSecret(t, map[string]string{
		"stdout (past the masks)": strings.ReplaceAll(strings.ReplaceAll(res.stdout, "::add-mask::"+runnerAPIKey+"\n", ""), "::add-mask::"+runnerToken+"\n", ""),
		"stderr":                  res.stderr,
		"the commits":             gitIn(t, r.origin, "log", "-p", "--all"),
		"the pull request":        pr.Title + pr.Body,
		"the step summary":        summary,
		"the outputs":             r.read(r.output),
		"the session file":        session,
	})

	// A local clone continues the session from the artifact.
	local := filepath.Join(t.TempDir(), "local")
	gitIn(t, filepath.Dir(local), "clone", "--quiet", "--branch", branch, r.origin, local)
	home := t.TempDir()
	trustFolder(t, home, local)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + t.TempDir(), "GOOGLE_GEMINI_BASE_URL=" + r.model.URL, "GEMINI_API_KEY=local-key", pinnedModel}
	h := &headless{t: t, model: r.model, root: local, env: env}
	again := h.run("run", "--resume", out["session-file"], "-p", "go on", "-o", "json")
	again.wantExit(t, 0)
	if !strings.Contains(again.stdout, "Still here.") {
		t.Fatalf("the resumed run answered %s\nstderr:\n%s", again.stdout, again.stderr)
	}
	reqs := r.model.Requests()
	last := reqs[len(reqs)-1].Contents
	if got := requestJSON(t, last); !strings.Contains(got, "Add a hello file") || !strings.Contains(got, "I added hello.txt.") || !strings.Contains(got, "go on") {
		t.Errorf("the resumed run's request does not continue the runner's session:\n%s", got)
	}
}

// wantNoSecret fails for each text holding the API key or the token.
func wantNoSecret(t *testing.T, texts map[string]string) {
	t.Helper()
	for what, text := range texts {
		for _, secret := range []string{runnerAPIKey, runnerToken} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds a secret (%s…)", what, secret[:6])
			}
		}
	}
}

func comment(association, login, body string) map[string]any {
	return map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": 7, "title": "Typo in README", "body": "It says repo."},
		"comment":    map[string]any{"body": body, "author_association": association, "user": map[string]any{"login": login}},
		"sender":     map[string]any{"login": login},
		"repository": map[string]any{"default_branch": "main"},
	}
}

// A comment naming @gemini-ls from someone without write access starts
// nothing: no model request, nothing pushed, no pull request, no
// comment; the step succeeds and its summary says why. Both checks
// count: an association that is not a writer's, and a collaborator
// whose permission GitHub says is read.
func TestActionCommentWithoutWriteAccessRunsNothing(t *testing.T) {
	for _, c := range []struct{ association, login, permission, why string }{
		{"NONE", "stranger", "", "their association with the repository is NONE"},
		{"COLLABORATOR", "reader", "read", "their permission on the repository is read"},
	} {
		t.Run(c.association, func(t *testing.T) {
			r := newRunner(t, geminitest.TextTurn("should not run"))
			if c.permission != "" {
				r.gh.SetPermission(c.login, c.permission)
			}
			res := r.run("issue_comment", comment(c.association, c.login, "@gemini-ls please fix the typo"))
			res.wantExit(t, 0)
			if n := len(r.model.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
			if got := strings.TrimSpace(r.originBranches()); got != "main" {
				t.Errorf("origin's branches are %q, want main alone", got)
			}
			if prs := r.gh.PullRequests(); len(prs) != 0 {
				t.Errorf("pull requests %+v", prs)
			}
			if cs := r.gh.Comments(7); len(cs) != 0 {
				t.Errorf("comments %+v", cs)
			}
			summary := r.read(r.summary)
			if !strings.Contains(summary, "gemini-ls did not run") || !strings.Contains(summary, c.why) || !strings.Contains(summary, "@"+c.login) {
				t.Errorf("the step summary does not say why:\n%s", summary)
			}
		})
	}
}

// A comment by a collaborator with write access runs the task on the
// issue's branch, and the issue is answered with the pull request.
func TestActionCommentFromAWriterOpensAPullRequest(t *testing.T) {
	r := newRunner(t,
		call("write_file", map[string]any{"file_path": "README.md", "content": "# the repository\n"}),
		geminitest.TextTurn("Fixed.\nSummary: Fix the README's title"),
	)
	r.gh.SetPermission("dev", "write")
	res := r.run("issue_comment", comment("COLLABORATOR", "dev", "@gemini-ls please fix the typo"))
	res.wantExit(t, 0)
	const branch = "gemini/issue-7-typo-in-readme"
	if got := gitIn(t, r.origin, "show", branch+":README.md"); got != "# the repository" {
		t.Errorf("README.md on %s is %q", branch, got)
	}
	first := r.model.Requests()[0].Contents
	if got := requestJSON(t, first); !strings.Contains(got, "Typo in README") || !strings.Contains(got, "@gemini-ls please fix the typo") {
		t.Errorf("the prompt lacks the issue or the comment:\n%s", got)
	}
	prs := r.gh.PullRequests()
	if len(prs) != 1 || !strings.Contains(prs[0].Body, "For #7.") {
		t.Fatalf("pull requests %+v", prs)
	}
	if cs := r.gh.Comments(7); len(cs) != 1 || !strings.Contains(cs[0].Body, prs[0].HTMLURL) {
		t.Errorf("the issue's comments %+v, want one with the pull request", cs)
	}
}

// The agent cannot change .github/workflows: its write there is denied
// by the policy, told to it; a write by another spelling of the path
// that the policy does not match lands on disk but is left out of the
// commit, and the pull request says so. Its other edit is committed.
func TestActionRefusesWorkflowEdits(t *testing.T) {
	r := newRunner(t,
		call("write_file", map[string]any{"file_path": ".github/workflows/ci.yml", "content": "on: push\njobs: {steal: {}}\n"}),
		call("write_file", map[string]any{"file_path": "./.github/./workflows/new.yml", "content": "on: push\n"}),
		call("write_file", map[string]any{"file_path": "notes.txt", "content": "notes\n"}),
		geminitest.TextTurn("Done.\nSummary: Add notes"),
	)
	res := r.run("workflow_dispatch", dispatch("Add notes and a workflow"))
	res.wantExit(t, 0)
	denied := r.model.Requests()[1].Contents
	if got := requestJSON(t, denied); !strings.Contains(got, "does not let the agent change .github/workflows") {
		t.Errorf("the model was not told its workflow edit was refused:\n%s", got)
	}
	if got := r.read(filepath.Join(r.workspace, ".github/workflows/ci.yml")); got != "on: push\n" {
		t.Errorf("ci.yml was changed on disk: %q", got)
	}
	const branch = "gemini/add-notes-and-a-workflow"
	files := gitIn(t, r.origin, "diff", "--name-only", "main", branch)
	if strings.TrimSpace(files) != "notes.txt" {
		t.Errorf("the commit changes %q, want notes.txt alone", files)
	}
	prs := r.gh.PullRequests()
	if len(prs) != 1 || !strings.Contains(prs[0].Body, "### Left out") || !strings.Contains(prs[0].Body, ".github/workflows/new.yml") {
		t.Fatalf("the pull request does not say what was left out: %+v", prs)
	}
}

// A secret the agent wrote into a file stops the commit: nothing is
// pushed, no pull request, the step fails saying why; the key it echoed
// in its answer is masked out of the log, the step summary and the
// session file kept.
func TestActionRefusesToCommitASecret(t *testing.T) {
	r := newRunner(t,
		call("write_file", map[string]any{"file_path": "leak.txt", "content": "key=" + runnerAPIKey + "\n"}),
		geminitest.TextTurn("The key is "+runnerAPIKey+".\nSummary: Leak "+runnerAPIKey),
	)
	res := r.run("workflow_dispatch", dispatch("Write the key to a file"))
	res.wantExit(t, 1)
	if got := strings.TrimSpace(r.originBranches()); got != "main" {
		t.Errorf("origin's branches are %q, want main alone", got)
	}
	if prs := r.gh.PullRequests(); len(prs) != 0 {
		t.Errorf("pull requests %+v", prs)
	}
	summary := r.read(r.summary)
	if !strings.Contains(summary, "leak.txt holds a secret") {
		t.Errorf("the step summary does not say why:\n%s", summary)
	}
	sessions, _ := filepath.Glob(filepath.Join(r.tmp, "gemini-ls-session", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("kept session files %q, want one", sessions)
	}
	session := r.read(sessions[0])
	if !strings.Contains(session, "The key is ***.") {
		t.Errorf("the session file's copy does not mask the key:\n%s", session)
	}
	wantNoSecret(t, map[string]string{
		"stdout (past the masks)": strings.ReplaceAll(strings.ReplaceAll(res.stdout, "::add-mask::"+runnerAPIKey+"\n", ""), "::add-mask::"+runnerToken+"\n", ""),
		"stderr":                  res.stderr,
		"the step summary":        summary,
		"the session file":        session,
		"the commits":             gitIn(t, r.workspace, "log", "-p", "--all"),
	})
}

// requestJSON is contents as JSON: their texts, calls and results.
func requestJSON(t *testing.T, contents []*genai.Content) string {
	t.Helper()
	b, err := json.Marshal(contents)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An @gemini-ls comment on a fork's pull request, even by the owner,
// runs nothing: the action asks GitHub for the pull request, sees its
// head in another repository, and says so in the step summary.
func TestActionCommentOnAForkPullRequestRunsNothing(t *testing.T) {
	r := newRunner(t, geminitest.TextTurn("should not run"))
	r.gh.AddPullRequest(github.PullRequest{Title: "Typo", Head: github.Ref{Ref: "main", Repo: &github.RefRepo{FullName: "eve/repo"}}, Base: github.Ref{Ref: "main"}})
	r.gh.SetPermission("owner", "admin")
	ev := comment("OWNER", "owner", "@gemini-ls please merge main")
	ev["issue"] = map[string]any{"number": 1, "title": "Typo", "body": "", "pull_request": map[string]any{"url": r.gh.URL + "/repos/octo/repo/pulls/1"}}
	res := r.run("issue_comment", ev)
	res.wantExit(t, 0)
	if n := len(r.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if got := strings.TrimSpace(r.originBranches()); got != "main" {
		t.Errorf("origin's branches are %q, want main alone", got)
	}
	if summary := r.read(r.summary); !strings.Contains(summary, "branch is in eve/repo, not octo/repo") {
		t.Errorf("the step summary does not say why:\n%s", summary)
	}
}
