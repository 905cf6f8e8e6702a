package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/gemini-ls/gemini-ls/internal/ghtask"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Agent runs the agent headless and reports how it ended; an error only
// when it could not be run at all.
type Agent func(ctx context.Context, run AgentRun) (AgentResult, error)

// AgentRun is one headless run of the agent.
type AgentRun struct {
	Dir, Prompt, Model string
	// Resume is the session to continue (an id or a session file), ""
	// for a new one.
	Resume string
	// ApprovalMode is auto_edit or yolo; PolicyFile an admin policy.
	ApprovalMode, PolicyFile string
	// Log takes the run's log lines.
	Log io.Writer
}

// AgentResult is how a headless run ended.
type AgentResult struct {
	// Exit is its exit status; Error what it said of a failure.
	Exit  int
	Error string
	// SessionID and SessionFile are its session's, "" when it had none.
	SessionID, SessionFile string
	// Response is its answer's text.
	Response string
	// Requests is the model requests made: the agent's turns.
	Requests int
	// Tokens are the session's: input (prompt), output (candidates) and
	// total.
	InputTokens, OutputTokens, TotalTokens int
}

// Options are gemini-ls action's own choices.
type Options struct {
	// ApprovalMode is the agent's: auto_edit (edits; no shell command)
	// unless the workflow asks for yolo.
	ApprovalMode string
}

// maxEvent bounds the event payload read.
const maxEvent = 16 << 20

// Run does the whole job of a workflow step and returns its exit status;
// stdout is the step's log, which Actions reads for ::add-mask::.
func Run(ctx context.Context, env Env, opts Options, agent Agent, stdout, stderr io.Writer) int {
	for _, s := range env.Secrets {
		fmt.Fprintf(stdout, "::add-mask::%s\n", s)
	}
	log := &redacting{w: stderr, env: env}
	defer log.Flush()
	j := &job{env: env, opts: opts, agent: agent, log: log}
	err := j.run(ctx)
	var skip *Skip
	switch {
	case errors.As(err, &skip):
		j.say("gemini-ls did not run: %s", skip.Why)
		j.summary("### gemini-ls did not run\n\n" + skip.Why + "\n")
		return 0
	case err != nil:
		j.say("gemini-ls action: %v", err)
		j.summary("### gemini-ls failed\n\n" + err.Error() + "\n")
		return 1
	}
	return j.exit
}

// job is one run of Run.
type job struct {
	env   Env
	opts  Options
	agent Agent
	log   *redacting
	repo  repo
	exit  int
	// gh is the API's client, ghRepo the repository: decide makes them.
	gh     *github.Client
	ghRepo github.Repo
}

// say writes a log line, secrets redacted.
func (j *job) say(format string, args ...any) {
	fmt.Fprintf(j.log, format+"\n", args...)
}

// summary appends md to the step summary, secrets redacted.
func (j *job) summary(md string) {
	if j.env.StepSummary == "" {
		return
	}
	if err := appendFile(j.env.StepSummary, j.env.redact(md)); err != nil {
		j.say("gemini-ls action: writing the step summary: %v", err)
	}
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

func (j *job) run(ctx context.Context) error {
	task, err := j.decide(ctx)
	if err != nil {
		return err
	}
	j.repo = repo{dir: j.env.Workspace}
	if j.repo.auth, err = j.repo.authEnv(ctx, j.env.Token); err != nil {
		return err
	}
	base, start, err := j.checkout(ctx, task)
	if err != nil {
		return err
	}
	j.say("gemini-ls: working on %s from %s", task.Branch, base)

	res, err := j.runAgent(ctx, task)
	if err != nil {
		return err
	}
	j.exit = res.Exit
	session := j.keepSession(res)

	changes, refused, err := j.stage(ctx, start)
	if err != nil {
		return err
	}
	r := report{task: task, res: res, changes: changes, refused: refused, base: base, session: session}
	if len(changes) == 0 {
		j.nothingDone(ctx, r)
		return nil
	}
	return j.publish(ctx, r)
}

// decide reads the runner's environment and the event, and decides the
// task, or that nothing runs (a *Skip); it makes the job's API client.
func (j *job) decide(ctx context.Context) (Task, error) {
	env := j.env
	for _, v := range []struct{ name, value string }{
		{"GITHUB_EVENT_NAME", env.EventName}, {"GITHUB_EVENT_PATH", env.EventPath},
		{"GITHUB_REPOSITORY", env.Repository}, {"GITHUB_WORKSPACE", env.Workspace}, {"RUNNER_TEMP", env.RunnerTemp},
	} {
		if v.value == "" {
			return Task{}, fmt.Errorf("%s is not set: gemini-ls action runs in a GitHub Actions step", v.name)
		}
	}
	ghRepo, err := github.ParseRepo(env.Repository)
	if err != nil {
		return Task{}, fmt.Errorf("GITHUB_REPOSITORY: %w", err)
	}
	gh, err := github.New(env.APIURL, env.Token, nil)
	if err != nil {
		return Task{}, err
	}
	j.gh, j.ghRepo = gh, ghRepo
	payload, err := safefile.Read(env.EventPath, maxEvent)
	if err != nil {
		return Task{}, fmt.Errorf("reading the event (GITHUB_EVENT_PATH): %w", err)
	}
	d := decider{
		repo: ghRepo.String(), inputs: env.Inputs,
		permission: func(ctx context.Context, user string) (github.Permission, error) {
			return gh.UserPermission(ctx, ghRepo, user)
		},
		pullRequest: func(ctx context.Context, n int) (github.PullRequest, error) {
			return gh.PullRequest(ctx, ghRepo, n)
		},
	}
	return d.decide(ctx, env.EventName, payload)
}

// nothingDone ends a run whose agent changed nothing: the outputs, the
// summary, and an answer on the issue.
func (j *job) nothingDone(ctx context.Context, r report) {
	j.say("gemini-ls: the agent changed nothing to commit")
	j.outputs(map[string]string{"branch": "", "pr-url": "", "session-file": r.session})
	j.summary(r.stepSummary(""))
	if r.task.Issue != 0 {
		if _, err := j.gh.CreateComment(ctx, j.ghRepo, r.task.Issue, j.env.redact(r.nothingComment())); err != nil {
			j.say("gemini-ls action: %v", err)
		}
	}
}

// publish commits the staged changes, pushes the task's branch, opens
// or updates its pull request, answers on the issue, and writes the
// outputs and the summary.
func (j *job) publish(ctx context.Context, r report) error {
	task := r.task
	msg := j.env.redact(r.commitMessage())
	if _, err := j.repo.git(ctx, append(j.repo.identity(ctx), "commit", "--no-verify", "--quiet", "-m", msg)...); err != nil {
		return fmt.Errorf("committing the agent's changes: %w", err)
	}
	if err := j.push(ctx, task.Branch); err != nil {
		return err
	}
	pr, err := j.pullRequest(ctx, j.gh, j.ghRepo, task.Branch, r.base, ghtask.FirstLine(msg), j.env.redact(r.body()))
	if err != nil {
		return err
	}
	j.say("gemini-ls: pull request %s", pr.HTMLURL)
	if task.Issue != 0 {
		answer := fmt.Sprintf("gemini-ls opened %s for this: %s", pr.HTMLURL, ghtask.FirstLine(msg))
		if task.FollowUp {
			answer = fmt.Sprintf("gemini-ls pushed a commit to %s: %s", task.Branch, ghtask.FirstLine(msg))
		}
		if _, err := j.gh.CreateComment(ctx, j.ghRepo, task.Issue, answer); err != nil {
			j.say("gemini-ls action: %v", err)
		}
	}
	j.outputs(map[string]string{"branch": task.Branch, "pr-url": pr.HTMLURL, "session-file": r.session})
	j.summary(r.stepSummary(pr.HTMLURL))
	return nil
}

// checkout puts the workspace on the task's branch: origin's when it
// has one (the task run again), else a new one from base. It returns the
// base branch's name and the commit the branch started at.
func (j *job) checkout(ctx context.Context, task Task) (base, start string, err error) {
	current, _ := j.repo.line(ctx, "rev-parse", "--abbrev-ref", "HEAD")
	base = task.Base
	if base == "" {
		base = j.env.RefName
	}
	if base == "" || base == "HEAD" {
		base = current
	}
	if base == "" || base == "HEAD" {
		return "", "", errors.New("the workspace is on no branch and no base was given (input base)")
	}
	from := "HEAD"
	if base != current {
		if !j.repo.fetchBranch(ctx, base) {
			return "", "", fmt.Errorf("the base branch %s is not on origin", base)
		}
		from = "refs/remotes/origin/" + base
	}
	if _, err := j.repo.git(ctx, "check-ref-format", "refs/heads/"+task.Branch); err != nil {
		return "", "", fmt.Errorf("the branch name %q: %w", task.Branch, err)
	}
	if j.repo.fetchBranch(ctx, task.Branch) {
		from = "refs/remotes/origin/" + task.Branch
	}
	if _, err := j.repo.git(ctx, "checkout", "--quiet", "-B", task.Branch, from); err != nil {
		return "", "", fmt.Errorf("making the branch %s: %w", task.Branch, err)
	}
	start, err = j.repo.line(ctx, "rev-parse", "HEAD")
	return base, start, err
}

// instructions follow the task in the agent's prompt.
const instructions = `

---
You are running unattended in a GitHub Actions runner, in a checkout of the repository. Make the change the task asks for in the files; do not commit or push (gemini-ls commits your changes and opens a pull request). Do not change .github/workflows: such changes are refused. When you are done, end your answer with one line of the form
Summary: <what you changed, in at most 72 characters>
which becomes the commit message.`

func (j *job) runAgent(ctx context.Context, task Task) (AgentResult, error) {
	dir := filepath.Join(j.env.RunnerTemp, "gemini-ls")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return AgentResult{}, fmt.Errorf("making %s: %w", dir, err)
	}
	pol := filepath.Join(dir, "workflows.toml")
	if err := os.WriteFile(pol, []byte(denyWorkflows()), 0o600); err != nil {
		return AgentResult{}, fmt.Errorf("writing the agent's policy: %w", err)
	}
	mode := j.opts.ApprovalMode
	if mode == "" {
		mode = "auto_edit"
	}
	res, err := j.agent(ctx, AgentRun{
		Dir: j.env.Workspace, Prompt: task.Prompt + instructions, Model: task.Model, Resume: task.Session,
		ApprovalMode: mode, PolicyFile: pol, Log: j.log,
	})
	if err != nil {
		return res, fmt.Errorf("running the agent: %w", err)
	}
	if res.Exit != 0 {
		j.say("gemini-ls: the agent stopped (exit status %d): %s", res.Exit, res.Error)
	}
	return res, nil
}

// stage folds the agent's own commits back into the tree (git reset to
// start), stages every change but .github/workflows', and refuses a
// change that holds a secret. It returns the staged changes and the
// workflow paths left out.
func (j *job) stage(ctx context.Context, start string) ([]Change, []string, error) {
	if _, err := j.repo.git(ctx, "reset", "--quiet", start); err != nil {
		return nil, nil, fmt.Errorf("folding the agent's commits: %w", err)
	}
	if _, err := j.repo.git(ctx, "add", "--all", "--", ".", notWorkflows); err != nil {
		return nil, nil, fmt.Errorf("staging the agent's changes: %w", err)
	}
	refused, err := j.repo.changedIn(ctx, workflows)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range refused {
		j.say("gemini-ls: left out of the commit (the agent may not change .github/workflows): %s", p)
	}
	changes, err := j.repo.staged(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range changes {
		if c.Status == "D" {
			continue
		}
		held, err := holdsSecret(filepath.Join(j.env.Workspace, c.Path), j.env.Secrets)
		if err != nil {
			return nil, nil, fmt.Errorf("checking %s for secrets: %w", c.Path, err)
		}
		if held {
			return nil, nil, fmt.Errorf("the agent's change of %s holds a secret (an API key or token of this run): nothing was committed or pushed", c.Path)
		}
	}
	return changes, refused, nil
}

// holdsSecret reports whether the file at path holds one of secrets,
// reading it a block at a time.
func holdsSecret(path string, secrets []string) (bool, error) {
	if len(secrets) == 0 {
		return false, nil
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		// A link's target is its text, which git commits: read it.
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			return err == nil && containsAny([]byte(target), secrets), err
		}
		return false, err
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	longest := 0
	for _, s := range secrets {
		longest = max(longest, len(s))
	}
	buf := make([]byte, 0, 1<<20+longest)
	block := make([]byte, 1<<20)
	for {
		n, err := f.Read(block)
		buf = append(buf, block[:n]...)
		if containsAny(buf, secrets) {
			return true, nil
		}
		if len(buf) > longest {
			buf = append(buf[:0], buf[len(buf)-longest:]...)
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

func containsAny(b []byte, secrets []string) bool {
	for _, s := range secrets {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}

// push pushes HEAD to origin's branch, as a fast-forward.
func (j *job) push(ctx context.Context, branch string) error {
	if _, err := j.repo.remote(ctx, "push", "--no-verify", "--quiet", "origin", "HEAD:refs/heads/"+branch); err != nil {
		return fmt.Errorf("pushing %s to origin: %w", branch, err)
	}
	return nil
}

// pullRequest updates the branch's open pull request, or opens one as
// a draft.
func (j *job) pullRequest(ctx context.Context, gh *github.Client, r github.Repo, branch, base, title, body string) (github.PullRequest, error) {
	pr, ok, err := gh.OpenPullRequest(ctx, r, branch)
	if err != nil {
		return pr, err
	}
	if ok {
		return gh.UpdatePullRequest(ctx, r, pr.Number, github.PullRequestUpdate{Body: body})
	}
	return gh.CreatePullRequest(ctx, r, github.NewPullRequest{Title: title, Head: branch, Base: base, Body: body, Draft: true})
}

// keepSession copies the session file into RUNNER_TEMP/gemini-ls-session
// for an artifact step, secrets redacted, and returns the copy's path;
// "" when there is none.
func (j *job) keepSession(res AgentResult) string {
	if res.SessionFile == "" {
		return ""
	}
	data, err := safefile.Read(res.SessionFile, 256<<20)
	if err != nil {
		j.say("gemini-ls action: keeping the session file: %v", err)
		return ""
	}
	for _, s := range j.env.Secrets {
		data = bytes.ReplaceAll(data, []byte(s), []byte("***"))
	}
	dir := filepath.Join(j.env.RunnerTemp, "gemini-ls-session")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		j.say("gemini-ls action: keeping the session file: %v", err)
		return ""
	}
	out := filepath.Join(dir, filepath.Base(res.SessionFile))
	if err := os.WriteFile(out, data, 0o600); err != nil {
		j.say("gemini-ls action: keeping the session file: %v", err)
		return ""
	}
	return out
}

// outputs appends the step's outputs to GITHUB_OUTPUT.
func (j *job) outputs(kv map[string]string) {
	if j.env.Output == "" {
		return
	}
	var b strings.Builder
	for _, k := range []string{"pr-url", "branch", "session-file"} {
		v := strings.ReplaceAll(j.env.redact(kv[k]), "\n", " ")
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	if err := appendFile(j.env.Output, b.String()); err != nil {
		j.say("gemini-ls action: writing the step's outputs: %v", err)
	}
}

// summaryLine is the last "Summary: ..." line of the agent's answer.
const summaryLine = `(?im)^\s*\**summary:?\**:?\s*(.+?)\s*$`

// redacting writes lines to w with the secrets replaced, a line at a
// time, so that a secret split over two writes is still found.
type redacting struct {
	w   io.Writer
	env Env
	buf []byte
}

func (r *redacting) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := io.WriteString(r.w, r.env.redact(string(r.buf[:i+1]))); err != nil {
			return 0, err
		}
		r.buf = r.buf[i+1:]
	}
	return len(p), nil
}

// Flush writes what is left of a last line.
func (r *redacting) Flush() {
	if len(r.buf) > 0 {
		io.WriteString(r.w, r.env.redact(string(r.buf)))
		r.buf = nil
	}
}
