package action

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"github.com/gemini-ls/gemini-ls/internal/ghtask"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fetchsource"
	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// perms answers the permission API from a map, and the pull requests
// API from pulls; asked records who was asked about.
type perms struct {
	of    map[string]github.Permission
	pulls map[int]github.PullRequest
	asked []string
}

func (p *perms) pullRequest(_ context.Context, n int) (github.PullRequest, error) {
	if pr, ok := p.pulls[n]; ok {
		return pr, nil
	}
	return github.PullRequest{}, &github.Error{Status: 404, Message: "Not Found"}
}

func (p *perms) decider(inputs Inputs) decider {
	return decider{repo: "octo/repo", inputs: inputs, permission: p.permission, pullRequest: p.pullRequest}
}

func (p *perms) permission(_ context.Context, user string) (github.Permission, error) {
	p.asked = append(p.asked, user)
	if v, ok := p.of[user]; ok {
		return v, nil
	}
	return "none", nil
}

func payload(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func issue(action, sender string) map[string]any {
	return map[string]any{"action": action, "sender": map[string]any{"login": sender},
		"issue": map[string]any{"number": 12, "title": "Crash on empty input!", "body": "Steps: run it."}}
}

func commentBy(association, login, body string) map[string]any {
	ev := issue("created", login)
	ev["comment"] = map[string]any{"body": body, "author_association": association, "user": map[string]any{"login": login}}
	return ev
}

// Each event gives its task, or a Skip saying why nothing runs; write
// access is asked of GitHub for issues and comments, after the
// association when the event gives one.
func TestDecide(t *testing.T) {
	ctx := context.Background()
	p := &perms{of: map[string]github.Permission{"dev": "write", "boss": "admin", "triager": "read"}}
	for _, c := range []struct {
		name, event string
		payload     any
		branch      string // of the task; "" when skipped
		why         string // in the skip
	}{
		{"dispatch", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "Add a CHANGELOG\nwith the last release", "base": "dev", "model": "gemini-2.5-flash"}}, "gemini/add-a-changelog", ""},
		{"dispatch without prompt", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "  "}}, "", "without a prompt"},
		{"labelled by a writer", "issues", issue("labeled", "dev"), "gemini/issue-12-crash-on-empty-input", ""},
		{"assigned by an admin", "issues", issue("assigned", "boss"), "gemini/issue-12-crash-on-empty-input", ""},
		{"labelled by a triager", "issues", issue("labeled", "triager"), "", "their permission on the repository is read"},
		{"issue opened", "issues", issue("opened", "dev"), "", "only an issue labelled or assigned"},
		{"comment by a writer", "issue_comment", commentBy("MEMBER", "dev", "@gemini-ls fix it"), "gemini/issue-12-crash-on-empty-input", ""},
		{"comment by a contributor", "issue_comment", commentBy("CONTRIBUTOR", "dev", "@gemini-ls fix it"), "", "association with the repository is CONTRIBUTOR"},
		{"comment by a collaborator who may only read", "issue_comment", commentBy("COLLABORATOR", "triager", "@gemini-ls fix it"), "", "permission on the repository is read"},
		{"comment without the mention", "issue_comment", commentBy("OWNER", "boss", "@gemini-lsx fix it"), "", "does not mention @gemini-ls"},
		{"comment with it in an address", "issue_comment", commentBy("OWNER", "boss", "mail me@gemini-ls.dev"), "", "does not mention"},
		{"another event", "push", map[string]any{}, "", "not push"},
		{"dispatch with a task", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "Add a flag", "task": "add-a-flag-3f9a"}}, "gemini/add-a-flag-3f9a", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			task, err := p.decider(Inputs{}).decide(ctx, c.event, payload(t, c.payload))
			var skip *Skip
			switch {
			case c.why != "":
				if !errors.As(err, &skip) || !strings.Contains(skip.Why, c.why) {
					t.Fatalf("got %+v, %v; want a skip saying %q", task, err, c.why)
				}
			case err != nil:
				t.Fatal(err)
			case task.Branch != c.branch:
				t.Errorf("branch %q, want %q", task.Branch, c.branch)
			}
		})
	}
	// A contributor's comment is refused before GitHub is asked.
	p.asked = nil
	if _, err := p.decider(Inputs{}).decide(ctx, "issue_comment", payload(t, commentBy("NONE", "x", "@gemini-ls hi"))); err == nil || len(p.asked) != 0 {
		t.Errorf("err %v, asked %q", err, p.asked)
	}
	task, err := p.decider(Inputs{}).decide(ctx, "issue_comment", payload(t, commentBy("OWNER", "boss", "Please, @gemini-ls: add a test.")))
	if err != nil || task.Issue != 12 || !strings.Contains(task.Prompt, "Crash on empty input!") || !strings.Contains(task.Prompt, "Request from the GitHub user boss in a comment:\n\nPlease, @gemini-ls: add a test.") {
		t.Errorf("task %+v err %v", task, err)
	}
	if _, err := p.decider(Inputs{}).decide(ctx, "issues", []byte("{not json")); err == nil || errors.As(err, new(*Skip)) {
		t.Errorf("a broken payload: %v, want an error, not a skip", err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the login page!":                        "fix-the-login-page",
		"  --Ünïcode só  ":                           "n-code-s",
		"日本語":                                        "task",
		"a/b..c~d^e:f?g*h[i@{j":                      "a-b-c-d-e-f-g-h-i-j",
		strings.Repeat("abcdefghij ", 10):            "abcdefghij-abcdefghij-abcdefghij-abcdefg",
		"refs/heads/../../etc/passwd and more words": "refs-heads-etc-passwd-and-more-words",
	} {
		if got := ghtask.Slug(in); got != want {
			t.Errorf("ghtask.Slug(%q) = %q, want %q", in, got, want)
		}
		if len(ghtask.Slug(in)) > ghtask.MaxSlug {
			t.Errorf("ghtask.Slug(%q) is longer than %d", in, ghtask.MaxSlug)
		}
	}
}

// The policy loads without a problem, denies writes to the workflows by
// any case and either slash, and lets other writes and other .github
// files be.
func TestPolicyDeniesWorkflowWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(path, []byte(denyWorkflows()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := policy.Load([]policy.Source{{Tier: policy.TierAdmin, Path: path}}, false)
	if p := e.Problems(); len(p) != 0 {
		t.Fatalf("problems loading the policy: %+v", p)
	}
	for file, denied := range map[string]bool{
		".github/workflows/ci.yml":           true,
		"/w/repo/.GitHub/Workflows/x.yaml":   true,
		`C:\w\repo\.github\workflows\ci.yml`: true,
		".github/workflows":                  true,
		".github/dependabot.yml":             false,
		"src/workflows/x.go":                 false,
	} {
		for _, tool := range []string{tools.WriteFileName, tools.ReplaceName} {
			for _, mode := range []policy.Mode{policy.ModeAutoEdit, policy.ModeYolo} {
				v := e.Check(policy.Call{Name: tool, Mode: mode, Args: map[string]any{"file_path": file, "content": "x"}})
				if got := v.Decision == policy.Deny; got != denied {
					t.Errorf("%s %s in %s: decision %q, want denied %v", tool, file, mode, v.Decision, denied)
				}
			}
		}
	}
	v := e.Check(policy.Call{Name: tools.ShellName, Mode: policy.ModeYolo, Args: map[string]any{"command": "echo x > .github/workflows/ci.yml"}})
	if v.Decision != policy.Deny {
		t.Errorf("a shell command writing a workflow: %q, want denied", v.Decision)
	}
}

// A secret is found in a file across the blocks it is read in, and in a
// link's target; a file without one is not flagged.
func TestHoldsSecret(t *testing.T) {
	dir := t.TempDir()
	const secret = "s3cr3t-value-xyz"
	split := strings.Repeat("a", 1<<20-5) + secret + "tail"
	for name, content := range map[string]string{"split": split, "clean": strings.Repeat("b", 3<<20), "small": "x" + secret} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	platformtest.Symlink(t, "/tmp/"+secret, filepath.Join(dir, "link"))
	for name, want := range map[string]bool{"split": true, "clean": false, "small": true, "link": true} {
		got, err := holdsSecret(filepath.Join(dir, name), []string{"other", secret})
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
}

// The log writer redacts a secret split over two writes.
func TestRedactingSplitWrites(t *testing.T) {
	var out bytes.Buffer
	r := &redacting{w: &out, env: Env{Secrets: []string{"topsecret"}}}
	r.Write([]byte("the key is top"))
	r.Write([]byte("secret, and again topsecret\nlast top"))
	r.Write([]byte("secret"))
	r.Flush()
	if got, want := out.String(), "the key is ***, and again ***\nlast ***"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// The commit's subject is the agent's last summary line, else the
// task's title.
func TestCommitMessage(t *testing.T) {
	task := Task{Title: "Fix the crash", Issue: 3}
	for response, want := range map[string]string{
		"Done.\nSummary: Guard against empty input": "Guard against empty input",
		"**Summary:** Use a map\n":                  "Use a map",
		"Summary: first\nmore\nsummary: second":     "second",
		"No summary here.":                          "Fix the crash",
	} {
		msg := report{task: task, res: AgentResult{Response: response}}.commitMessage()
		if subject, _, _ := strings.Cut(msg, "\n"); subject != want {
			t.Errorf("%q: subject %q, want %q", response, subject, want)
		}
		if !strings.Contains(msg, "Task: Fix the crash (#3)") {
			t.Errorf("%q: message %q lacks the task", response, msg)
		}
	}
}

// A dispatch's task input names its branch gemini/<task>; a task that
// cannot be one part of it is refused with an error saying why (not a
// skip: the step fails), before anything runs.
func TestDispatchTaskNamesTheBranch(t *testing.T) {
	ctx := context.Background()
	d := (&perms{}).decider(Inputs{})
	task, err := d.decide(ctx, "workflow_dispatch", payload(t, map[string]any{"inputs": map[string]any{"prompt": "Add a --verbose flag", "task": "add-a-verbose-flag-3f9a"}}))
	if err != nil || task.Branch != "gemini/add-a-verbose-flag-3f9a" || task.Title != "Add a --verbose flag" {
		t.Fatalf("task %+v, err %v", task, err)
	}
	for bad, why := range map[string]string{
		"a/b":                         "slash",
		"../../main":                  "slash",
		"x..y":                        "..",
		"-rf":                         "starts with a dash",
		".hidden":                     "starts with a dash or a dot",
		"x.lock":                      ".lock",
		"a b":                         `holds ' '`,
		"tilde~1":                     `holds '~'`,
		"at@{1}":                      `holds '@'`,
		strings.Repeat("a", 101):      "longer than 100",
		"naïve":                       `holds 'ï'`,
		"colon:x":                     `holds ':'`,
		"star*":                       `holds '*'`,
		"question?":                   `holds '?'`,
		"bracket[":                    `holds '['`,
		"back\\slash":                 `holds '\\'`,
		"newline\nx":                  `holds '\n'`,
		"ends.":                       "ending in .",
		strings.Repeat("b", 99) + "/": "slash",
	} {
		_, err := d.decide(ctx, "workflow_dispatch", payload(t, map[string]any{"inputs": map[string]any{"prompt": "p", "task": bad}}))
		if err == nil || errors.As(err, new(*Skip)) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "gemini/<task>") {
			t.Errorf("task %q: %v, want an error saying %q", bad, err, why)
		}
	}
}

// TaskName is a slug of the prompt's first line and the suffix, always
// a task the dispatch takes.
func TestTaskName(t *testing.T) {
	for _, c := range []struct{ prompt, suffix, want string }{
		{"Add a --verbose flag\nand document it", "3f9a", "add-a-verbose-flag-3f9a"},
		{"\n\n  Fix ../../etc/passwd  ", "00ff", "fix-etc-passwd-00ff"},
		{"日本語", "beef", "task-beef"},
		{"Plain", "", "plain"},
		{strings.Repeat("word ", 30), "1a2b", "word-word-word-word-word-word-word-word-w-1a2b"},
	} {
		got := ghtask.Name(c.prompt, c.suffix)
		if got != c.want {
			t.Errorf("ghtask.Name(%q, %q) = %q, want %q", c.prompt, c.suffix, got, c.want)
		}
		if err := checkTaskName(got); err != nil {
			t.Errorf("ghtask.Name(%q, %q) is refused: %v", c.prompt, c.suffix, err)
		}
	}
}

// action.yml's inputs (INPUT_*) give what the event does not: a
// dispatch's prompt, base and session when its own are empty (its own
// win), an issue's base, and the task of an event with none of its own.
func TestActionInputs(t *testing.T) {
	ctx := context.Background()
	p := &perms{of: map[string]github.Permission{"dev": "write"}}
	d := p.decider(Inputs{Prompt: "Update the changelog", Base: "release", Session: "s-1"})
	task, err := d.decide(ctx, "workflow_dispatch", payload(t, map[string]any{"inputs": map[string]any{"prompt": " "}}))
	if err != nil || task.Prompt != "Update the changelog" || task.Base != "release" || task.Session != "s-1" || task.Branch != "gemini/update-the-changelog" {
		t.Errorf("a dispatch without inputs: %+v, %v", task, err)
	}
	task, err = d.decide(ctx, "workflow_dispatch", payload(t, map[string]any{"inputs": map[string]any{"prompt": "Fix the build", "base": "dev", "session": "s-2"}}))
	if err != nil || task.Prompt != "Fix the build" || task.Base != "dev" || task.Session != "s-2" {
		t.Errorf("a dispatch's inputs do not win: %+v, %v", task, err)
	}
	task, err = d.decide(ctx, "issues", payload(t, issue("labeled", "dev")))
	if err != nil || task.Base != "release" || !strings.Contains(task.Prompt, "Crash on empty input!") || strings.Contains(task.Prompt, "changelog") {
		t.Errorf("an issue: %+v, %v", task, err)
	}
	task, err = d.decide(ctx, "schedule", payload(t, map[string]any{"schedule": "0 3 * * *"}))
	if err != nil || task.Prompt != "Update the changelog" || task.Branch != "gemini/update-the-changelog" {
		t.Errorf("a schedule with the prompt input: %+v, %v", task, err)
	}
	env := EnvFrom(func(name string) string {
		return map[string]string{"INPUT_PROMPT": "p", "INPUT_BASE": "b", "INPUT_SESSION": "s"}[name]
	})
	if env.Inputs != (Inputs{Prompt: "p", Base: "b", Session: "s"}) {
		t.Errorf("EnvFrom read the inputs as %+v", env.Inputs)
	}
}

func prComment(body string) map[string]any {
	ev := commentBy("OWNER", "boss", body)
	ev["issue"].(map[string]any)["pull_request"] = map[string]any{"url": "https://api.github.com/repos/octo/repo/pulls/12"}
	ev["repository"] = map[string]any{"default_branch": "main"}
	return ev
}

// An @gemini-ls comment on a pull request of this repository goes on
// with it: its branch, into its base, the prompt saying it is a
// follow-up; a fork's pull request, a closed one or one whose head is
// the default branch is refused with a skip saying why.
func TestCommentOnAPullRequestFollowsUp(t *testing.T) {
	ctx := context.Background()
	pr := func(head, headRepo, base, state string) github.PullRequest {
		p := github.PullRequest{Number: 12, Title: "Add a --verbose flag", State: state, Head: github.Ref{Ref: head}, Base: github.Ref{Ref: base}}
		if headRepo != "" {
			p.Head.Repo = &github.RefRepo{FullName: headRepo}
		}
		return p
	}
	p := &perms{of: map[string]github.Permission{"boss": "admin"}, pulls: map[int]github.PullRequest{12: pr("gemini/add-a-verbose-flag-3f9a", "octo/repo", "dev", "open")}}
	task, err := p.decider(Inputs{Base: "release"}).decide(ctx, "issue_comment", payload(t, prComment("@gemini-ls also document it")))
	if err != nil {
		t.Fatal(err)
	}
	if task.Branch != "gemini/add-a-verbose-flag-3f9a" || task.Base != "dev" || task.Issue != 12 || !task.FollowUp || task.Title != "Add a --verbose flag" {
		t.Errorf("the task is %+v", task)
	}
	for _, want := range []string{"follow-up on pull request #12", "gemini/add-a-verbose-flag-3f9a is checked out", "Request from the GitHub user boss in a comment:\n\n@gemini-ls also document it"} {
		if !strings.Contains(task.Prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, task.Prompt)
		}
	}
	for name, c := range map[string]struct {
		pr  github.PullRequest
		why string
	}{
		"a fork's":         {pr("main", "eve/repo", "main", "open"), "branch is in eve/repo, not octo/repo: gemini-ls does not work on a fork's pull request"},
		"a deleted fork's": {pr("x", "", "main", "open"), "branch is in a deleted repository"},
		"a closed one":     {pr("gemini/x", "octo/repo", "main", "closed"), "Pull request #12 is closed"},
		"the default's":    {pr("main", "octo/repo", "dev", "open"), "is the default branch (main)"},
	} {
		p.pulls[12] = c.pr
		_, err := p.decider(Inputs{}).decide(ctx, "issue_comment", payload(t, prComment("@gemini-ls go")))
		var skip *Skip
		if !errors.As(err, &skip) || !strings.Contains(skip.Why, c.why) {
			t.Errorf("%s pull request: %v, want a skip saying %q", name, err, c.why)
		}
	}
	delete(p.pulls, 12)
	if _, err := p.decider(Inputs{}).decide(ctx, "issue_comment", payload(t, prComment("@gemini-ls go"))); err == nil || errors.As(err, new(*Skip)) || !strings.Contains(err.Error(), "reading pull request #12") {
		t.Errorf("a pull request GitHub does not give: %v, want an error", err)
	}
}

// With origin an https URL and a token, fetch and push give git the
// token as actions/checkout does (an extra authorization header) through
// the environment alone: the server gets it, no argument of git holds
// it, nor the error, nor the log; the commands that do not talk to
// origin do not get it. A local origin, or none of the token, gets
// nothing.
func TestGitGetsTheTokenThroughTheEnvironment(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the recording git is a shell script")
	}
	const token = "ghs_push-token-77aa"
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no such repository", http.StatusNotFound)
	}))
	defer srv.Close()

	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, dir := t.TempDir(), t.TempDir()
	argsLog, envLog := filepath.Join(bin, "args"), filepath.Join(bin, "env")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + argsLog + "\nenv | grep '^GIT_CONFIG_' >>" + envLog + "\necho --- >>" + envLog + "\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GIT_SSL_NO_VERIFY", "1") // the test server's certificate
	ctx := context.Background()
	r := repo{dir: dir}
	for _, args := range [][]string{{"init", "--quiet"}, {"remote", "add", "origin", srv.URL + "/octo/repo.git"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "--quiet", "--allow-empty", "-m", "first"}} {
		if _, err := r.git(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if r.auth, err = r.authEnv(ctx, token); err != nil {
		t.Fatal(err)
	}
	wantHeader := "basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	if host := strings.TrimPrefix(srv.URL, "https://"); len(r.auth) != 2 || r.auth[0] != "http.https://"+host+"/.extraheader" || r.auth[1] != "AUTHORIZATION: "+wantHeader {
		t.Fatalf("the auth settings are %q", r.auth)
	}
	var logged bytes.Buffer
	j := &job{env: Env{Token: token, Secrets: []string{token, fetchsource.BasicAuth(token)}}, repo: r}
	j.log = &redacting{w: &logged, env: j.env}
	if j.repo.fetchBranch(ctx, "main") {
		t.Error("the fetch from a server that has no repository succeeded")
	}
	err = j.push(ctx, "gemini/x")
	if err == nil {
		t.Fatal("the push to a server that has no repository succeeded")
	}
	j.say("gemini-ls action: %v", err)
	j.log.Flush()

	mu.Lock()
	got := slices.Clone(auths)
	mu.Unlock()
	if len(got) != 2 || got[0] != wantHeader || got[1] != wantHeader {
		t.Errorf("the server got the authorizations %q, want %q on the fetch and the push", got, wantHeader)
	}
	args, _ := os.ReadFile(argsLog)
	envs, _ := os.ReadFile(envLog)
	for what, text := range map[string]string{"git's arguments": string(args), "the error": err.Error(), "the log": logged.String()} {
		if strings.Contains(text, token) || strings.Contains(text, fetchsource.BasicAuth(token)) {
			t.Errorf("%s hold the token:\n%s", what, text)
		}
	}
	// Each command's environment, in order: init, remote add, commit,
	// remote get-url, config (authEnv's), fetch, push.
	runs := strings.Split(strings.TrimSuffix(string(envs), "---\n"), "---\n")
	if len(runs) != 7 {
		t.Fatalf("git ran %d times:\n%s", len(runs), args)
	}
	for i, env := range runs {
		has := strings.Contains(env, "GIT_CONFIG_VALUE_8=AUTHORIZATION: "+wantHeader)
		if want := i >= 5; has != want {
			t.Errorf("git run %d (%s) has the header: %v, want %v", i, strings.Split(string(args), "\n")[i], has, want)
		}
	}

	// A local origin, or no token: nothing.
	if _, err := r.git(ctx, "remote", "set-url", "origin", dir); err != nil {
		t.Fatal(err)
	}
	if auth, err := r.authEnv(ctx, token); err != nil || auth != nil {
		t.Errorf("a local origin's auth: %q, %v", auth, err)
	}
	if auth, err := r.authEnv(ctx, ""); err != nil || auth != nil {
		t.Errorf("no token's auth: %q, %v", auth, err)
	}
	// A checkout that kept its credentials is left as it is.
	for _, args := range [][]string{{"remote", "set-url", "origin", "https://github.com/octo/repo"}, {"config", "--local", "http.https://github.com/.extraheader", "AUTHORIZATION: basic kept"}} {
		if _, err := r.git(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if auth, err := r.authEnv(ctx, token); err != nil || auth != nil {
		t.Errorf("a checkout with its own header: %q, %v", auth, err)
	}
}
