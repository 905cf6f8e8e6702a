package builtin

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The workflow /setup-github writes (workflows/gemini-ls.yml) is held
// here to what makes it safe to add to a public repository; make
// actionlint checks it is a workflow GitHub reads as meant, and that its
// `with:` fits action.yml's inputs.

type ghWorkflow struct {
	Name        string               `yaml:"name"`
	RunName     string               `yaml:"run-name"`
	On          map[string]yaml.Node `yaml:"on"`
	Permissions map[string]string    `yaml:"permissions"`
	Jobs        map[string]ghJob     `yaml:"jobs"`
}

type ghJob struct {
	If             string            `yaml:"if"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Permissions    map[string]string `yaml:"permissions"`
	Concurrency    struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Steps []ghStep `yaml:"steps"`
}

type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// The dispatch inputs `gemini-ls action` reads from the event, and
// whether each is required.
var dispatchInputs = map[string]bool{"prompt": true, "task": false, "base": false, "model": false, "session": false}

// runName is the runs' title: the editor finds the run it dispatched by
// its task there, and the fake GitHub titles its runs alike
// (githubtest.RunName).
const runName = "gemini-ls: ${{ inputs.task || format('#{0}', github.event.issue.number) }}"

// jobScopes is the most each job may ask of GITHUB_TOKEN: contents and
// pull-requests to push gemini/<task> and open its pull request, actions
// to read an earlier run's session artifact, and issues only for the job
// answering on an issue.
var jobScopes = map[string]map[string]string{
	"dispatch": {"contents": "write", "pull-requests": "write", "actions": "read"},
	"issue":    {"contents": "write", "pull-requests": "write", "actions": "read", "issues": "write"},
}

var (
	pinnedUses   = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	geminiLSUses = regexp.MustCompile(`^gemini-ls/gemini-ls@v\d+\.\d+\.\d+$`)
)

// workflowErrors is what makes data unfit to be the workflow /setup-github
// writes: triggers other than a dispatch, an issue labelled and a comment
// (no pull_request_target, which hands a fork's code the secrets); a token
// scope granted at the top or beyond what a job needs; a job without a
// time limit, a concurrency group of its task that queues rather than
// cancels, or a condition; a comment that starts the issue job without
// @gemini-ls or from someone not the owner, a member or a collaborator;
// an action not pinned, a checkout that leaves its token in .git/config,
// a script, or a secret other than GEMINI_API_KEY given to anything but
// the action.
func workflowErrors(data []byte) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	var w ghWorkflow
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		return []string{fmt.Sprintf("not the workflow's shape: %v", err)}
	}
	var triggers []string
	for name := range w.On {
		triggers = append(triggers, name)
	}
	slices.Sort(triggers)
	if !slices.Equal(triggers, []string{"issue_comment", "issues", "workflow_dispatch"}) {
		fail("triggers are %v, not issue_comment, issues and workflow_dispatch", triggers)
	}
	var on struct {
		WorkflowDispatch struct {
			Inputs map[string]struct {
				Required bool `yaml:"required"`
			} `yaml:"inputs"`
		} `yaml:"workflow_dispatch"`
		Issues struct {
			Types []string `yaml:"types"`
		} `yaml:"issues"`
		IssueComment struct {
			Types []string `yaml:"types"`
		} `yaml:"issue_comment"`
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err == nil && len(node.Content) == 1 {
		for i := 0; i+1 < len(node.Content[0].Content); i += 2 {
			if node.Content[0].Content[i].Value == "on" {
				node.Content[0].Content[i+1].Decode(&on)
			}
		}
	}
	got := map[string]bool{}
	for name, in := range on.WorkflowDispatch.Inputs {
		got[name] = in.Required
	}
	if fmt.Sprint(got) != fmt.Sprint(dispatchInputs) {
		fail("the dispatch's inputs (and whether required) are %v, not gemini-ls action's %v", got, dispatchInputs)
	}
	if !slices.Equal(on.Issues.Types, []string{"labeled"}) || !slices.Equal(on.IssueComment.Types, []string{"created"}) {
		fail("issues must trigger on labeled alone and comments on created alone")
	}
	if w.Permissions == nil || len(w.Permissions) != 0 {
		fail("the top-level permissions must be {}, and are %v", w.Permissions)
	}
	var jobs []string
	for name := range w.Jobs {
		jobs = append(jobs, name)
	}
	slices.Sort(jobs)
	if !slices.Equal(jobs, []string{"dispatch", "issue"}) {
		fail("jobs are %v, not dispatch and issue", jobs)
	}
	for name, job := range w.Jobs {
		most := jobScopes[name]
		for scope, level := range job.Permissions {
			if most[scope] != level {
				fail("job %s asks for %s: %s, beyond %v", name, scope, level, most)
			}
		}
		for _, scope := range []string{"contents", "pull-requests"} {
			if job.Permissions[scope] != "write" {
				fail("job %s cannot push or open its pull request without %s: write", name, scope)
			}
		}
		if job.TimeoutMinutes <= 0 {
			fail("job %s has no timeout-minutes", name)
		}
		if !strings.HasPrefix(job.Concurrency.Group, "gemini-ls-${{ ") || job.Concurrency.CancelInProgress {
			fail("job %s's concurrency must be a gemini-ls-<task> group that queues, and is %+v", name, job.Concurrency)
		}
		checkedOut, ran := false, false
		for _, s := range job.Steps {
			switch {
			case s.Run != "":
				fail("job %s runs a script: whatever it does belongs in action.yml, tested", name)
			case strings.HasPrefix(s.Uses, "actions/checkout@"):
				checkedOut = true
				if s.With["persist-credentials"] != "false" {
					fail("job %s's checkout keeps its token in .git/config, where the agent could read it", name)
				}
			case geminiLSUses.MatchString(s.Uses):
				ran = checkedOut
				if s.With["gemini_api_key"] != "${{ secrets.GEMINI_API_KEY }}" {
					fail("job %s gives the action the key %q", name, s.With["gemini_api_key"])
				}
			}
			if s.Uses != "" && !pinnedUses.MatchString(s.Uses) && !geminiLSUses.MatchString(s.Uses) {
				fail("job %s uses %s, not pinned by a full commit", name, s.Uses)
			}
		}
		if !ran {
			fail("job %s must check the repository out, then run gemini-ls/gemini-ls@vX.Y.Z", name)
		}
	}
	if w.RunName != runName {
		fail("the run-name is %q, not %q", w.RunName, runName)
	}
	if d := w.Jobs["dispatch"]; d.If != "github.event_name == 'workflow_dispatch'" || !strings.Contains(d.Concurrency.Group, "inputs.task || inputs.session") {
		fail("the dispatch job must run on a dispatch alone, one at a time per task or session")
	}
	issue := w.Jobs["issue"]
	cond := strings.Join(strings.Fields(issue.If), " ")
	for _, want := range []string{
		"(github.event_name == 'issues' && github.event.label.name == 'gemini-ls')",
		"(github.event_name == 'issue_comment' && contains(github.event.comment.body, '@gemini-ls') && contains(fromJSON('[\"OWNER\", \"MEMBER\", \"COLLABORATOR\"]'), github.event.comment.author_association))",
	} {
		if !strings.Contains(cond, want) {
			fail("the issue job's condition lacks %q", want)
		}
	}
	if strings.Count(cond, "||") != 1 || strings.Count(cond, "&&") != 3 {
		fail("the issue job's condition must be the label's or the comment's, nothing else: %q", cond)
	}
	if issue.Concurrency.Group != "gemini-ls-${{ github.event.issue.number }}" {
		fail("the issue job's concurrency group must be its issue's, and is %q", issue.Concurrency.Group)
	}
	if n, keys := strings.Count(string(data), "secrets."), strings.Count(string(data), "gemini_api_key: ${{ secrets.GEMINI_API_KEY }}"); n != keys {
		fail("a secret other than GEMINI_API_KEY, or given to anything but the action (%d secrets, %d keys to the action)", n, keys)
	}
	return errs
}

// TestGeminiLSWorkflow: the workflow /setup-github writes asks for no
// token scope at the top and only what each job needs below, runs one
// task at a time with a time limit, starts on a comment only when it says
// @gemini-ls and comes from someone the repository trusts, and gives the
// key to the pinned action alone; each fault below is caught.
func TestGeminiLSWorkflow(t *testing.T) {
	for _, err := range workflowErrors([]byte(geminiLSWorkflow)) {
		t.Errorf("workflows/gemini-ls.yml: %s", err)
	}
	for _, m := range []struct{ name, old, new, want string }{
		{"pull_request_target", "  issue_comment:\n", "  pull_request_target:\n  issue_comment:\n", "triggers are"},
		{"a dispatch input the runner does not read", "      session:\n", "      sesion:\n", "the dispatch's inputs"},
		{"no task input", "      task:\n", "      tusk:\n", "the dispatch's inputs"},
		{"a run-name without the task", "inputs.task || format", "inputs.prompt || format", "the run-name is"},
		{"a group per session alone", "inputs.task || inputs.session", "inputs.session", "one at a time per task"},
		{"a prompt not required", "        required: true\n", "        required: false\n", "the dispatch's inputs"},
		{"write-all at the top", "permissions: {}\n", "permissions:\n  contents: write\n", "top-level permissions must be {}"},
		{"no permissions at the top", "permissions: {}\n", "", "top-level permissions must be {}"},
		{"issues: write on a dispatch", "      actions: read # the earlier run's session artifact, to resume\n    steps:\n      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n        with:\n          ref:",
			"      actions: read\n      issues: write\n    steps:\n      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1\n        with:\n          ref:", "job dispatch asks for issues: write"},
		{"no time limit", "    timeout-minutes: 60\n", "", "has no timeout-minutes"},
		{"a group that cancels", "      cancel-in-progress: false\n", "      cancel-in-progress: true\n", "concurrency must be"},
		{"a comment without @gemini-ls", "      && contains(github.event.comment.body, '@gemini-ls')\n", "", "condition lacks"},
		{"a comment from anyone", "      && contains(fromJSON('[\"OWNER\", \"MEMBER\", \"COLLABORATOR\"]'), github.event.comment.author_association))",
			"      && true)", "condition lacks"},
		{"any label", "github.event.label.name == 'gemini-ls'", "github.event.label.name != ''", "condition lacks"},
		{"a condition widened", "(github.event_name == 'issues' &&", "github.event_name == 'issue_comment' || (github.event_name == 'issues' &&", "nothing else"},
		{"the token kept in .git/config", "          persist-credentials: false\n", "          persist-credentials: true\n", "keeps its token"},
		{"a checkout by tag", "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1", "actions/checkout@v7", "not pinned"},
		{"another secret", "gemini_api_key: ${{ secrets.GEMINI_API_KEY }}", "gemini_api_key: ${{ secrets.GEMINI_API_KEY }}\n          github_token: ${{ secrets.PAT }}", "a secret other than"},
		{"a script", "      - uses: gemini-ls/gemini-ls@", "      - run: echo \"${{ github.event.comment.body }}\"\n      - uses: gemini-ls/gemini-ls@", "runs a script"},
	} {
		t.Run(m.name, func(t *testing.T) {
			bad := strings.Replace(geminiLSWorkflow, m.old, m.new, 1)
			if bad == geminiLSWorkflow {
				t.Fatal("the mutation changed nothing: the workflow changed, so change the case")
			}
			errs := workflowErrors([]byte(bad))
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, m.want) }) {
				t.Errorf("no error mentions %q; the errors: %q", m.want, errs)
			}
		})
	}
}
