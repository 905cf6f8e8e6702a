package action

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/gemini-ls/gemini-ls/internal/ghtask"
	"regexp"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/github"
)

// Task is what the agent is asked to do, and where.
type Task struct {
	// Prompt is the agent's prompt; Title a short name of the task (the
	// branch's and, failing the agent's own, the commit's).
	Prompt, Title string
	// Base is the branch the work starts from, "" for the checkout's.
	Base string
	// Model and Session are workflow_dispatch's inputs: the model, and
	// the session to continue (an id or a session file).
	Model, Session string
	// Issue is the issue (or pull request) the task came from, 0 for
	// none: it is answered with the pull request's link.
	Issue int
	// FollowUp: the task goes on with pull request Issue, on its branch.
	FollowUp bool
	// Branch is gemini/<task> (a dispatch's task input, else a slug of
	// the title): one per task, so that a task run again (a comment on
	// the same issue) updates its pull request; a pull request's own
	// branch for a follow-up on it.
	Branch string
}

// Inputs are action.yml's inputs (INPUT_PROMPT, INPUT_BASE,
// INPUT_SESSION): the workflow's own, for what the event does not say.
// A dispatch's inputs win over them.
type Inputs struct {
	Prompt, Base, Session string
}

// Skip is an event that starts nothing: Why says, in a sentence, why.
type Skip struct{ Why string }

func (s *Skip) Error() string { return s.Why }

// event is what is read of the payloads of the events handled.
type event struct {
	Action string `json:"action"`
	Inputs struct {
		Prompt  string `json:"prompt"`
		Task    string `json:"task"`
		Base    string `json:"base"`
		Model   string `json:"model"`
		Session string `json:"session"`
	} `json:"inputs"`
	Issue *struct {
		Number      int       `json:"number"`
		Title       string    `json:"title"`
		Body        string    `json:"body"`
		PullRequest *struct{} `json:"pull_request"`
	} `json:"issue"`
	Comment *struct {
		Body              string `json:"body"`
		AuthorAssociation string `json:"author_association"`
		User              struct {
			Login string `json:"login"`
		} `json:"user"`
	} `json:"comment"`
	Sender struct {
		Login string `json:"login"`
	} `json:"sender"`
	Repository struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

// writers are the author associations of those who may push.
// writer reports whether a comment's author_association says its author
// may push: OWNER, MEMBER or COLLABORATOR.
func writer(association string) bool {
	return association == "OWNER" || association == "MEMBER" || association == "COLLABORATOR"
}

// permissionOf asks GitHub for a user's permission on the repository.
type permissionOf func(ctx context.Context, user string) (github.Permission, error)

// pullRequestOf asks GitHub for one of the repository's pull requests.
type pullRequestOf func(ctx context.Context, number int) (github.PullRequest, error)

// decider decides what an event asks for.
type decider struct {
	// repo is the repository, owner/name (GITHUB_REPOSITORY).
	repo string
	// inputs are action.yml's.
	inputs      Inputs
	permission  permissionOf
	pullRequest pullRequestOf
}

// or is the first of values not blank, trimmed.
func or(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// decide is the task the event asks for, or a *Skip saying why nothing
// runs; another error when the event cannot be read or asks for a
// branch that cannot be.
func (d decider) decide(ctx context.Context, name string, payload []byte) (Task, error) {
	var ev event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return Task{}, fmt.Errorf("reading the %s event: %w", name, err)
	}
	switch name {
	case "workflow_dispatch":
		prompt := or(ev.Inputs.Prompt, d.inputs.Prompt)
		if prompt == "" {
			return Task{}, &Skip{"The workflow was started without a prompt (its input prompt is empty, and so is the action's), so there is nothing to do."}
		}
		t := Task{Prompt: prompt, Title: ghtask.FirstLine(prompt), Base: or(ev.Inputs.Base, d.inputs.Base), Model: strings.TrimSpace(ev.Inputs.Model), Session: or(ev.Inputs.Session, d.inputs.Session)}
		t.Branch = "gemini/" + ghtask.Slug(t.Title)
		if task := strings.TrimSpace(ev.Inputs.Task); task != "" {
			if err := checkTaskName(task); err != nil {
				return Task{}, err
			}
			t.Branch = "gemini/" + task
		}
		return t, nil
	case "issues":
		if ev.Issue == nil {
			return Task{}, fmt.Errorf("reading the issues event: it names no issue")
		}
		if ev.Action != "labeled" && ev.Action != "assigned" {
			return Task{}, &Skip{fmt.Sprintf("Issue #%d was %s; only an issue labelled or assigned starts gemini-ls.", ev.Issue.Number, ev.Action)}
		}
		if err := mayWrite(ctx, d.permission, ev.Sender.Login, "", fmt.Sprintf("%s issue #%d", ev.Action, ev.Issue.Number)); err != nil {
			return Task{}, err
		}
		return d.issueTask(ev, ""), nil
	case "issue_comment":
		if ev.Issue == nil || ev.Comment == nil {
			return Task{}, fmt.Errorf("reading the issue_comment event: it names no issue or comment")
		}
		if ev.Action != "created" {
			return Task{}, &Skip{fmt.Sprintf("A comment on #%d was %s; only a new comment starts gemini-ls.", ev.Issue.Number, ev.Action)}
		}
		if !mentions(ev.Comment.Body) {
			return Task{}, &Skip{fmt.Sprintf("The comment on #%d does not mention %s.", ev.Issue.Number, ghtask.Mention)}
		}
		who := ev.Comment.User.Login
		if err := mayWrite(ctx, d.permission, who, ev.Comment.AuthorAssociation, fmt.Sprintf("commented on #%d", ev.Issue.Number)); err != nil {
			return Task{}, err
		}
		// The login without its @, which the agent would read as a file to
		// attach.
		request := fmt.Sprintf("Request from the GitHub user %s in a comment:\n\n%s", who, strings.TrimSpace(ev.Comment.Body))
		if ev.Issue.PullRequest != nil {
			return d.followUp(ctx, ev, request)
		}
		return d.issueTask(ev, request), nil
	}
	if prompt := or(d.inputs.Prompt); prompt != "" {
		// The workflow's own task (a schedule's, a push's): its author
		// wrote it, no event's text.
		return Task{Prompt: prompt, Title: ghtask.FirstLine(prompt), Base: or(d.inputs.Base), Session: or(d.inputs.Session), Branch: "gemini/" + ghtask.Slug(ghtask.FirstLine(prompt))}, nil
	}
	return Task{}, &Skip{fmt.Sprintf("gemini-ls action handles workflow_dispatch, issues and issue_comment events, not %s (unless the action's prompt input gives the task).", name)}
}

// followUp is the task of a comment on pull request: more work on its
// branch, into its base. A pull request whose head is not a branch of
// this repository (a fork's) is refused: its code is not the
// repository's owners', and this job holds their secrets.
func (d decider) followUp(ctx context.Context, ev event, request string) (Task, error) {
	n := ev.Issue.Number
	pr, err := d.pullRequest(ctx, n)
	if err != nil {
		return Task{}, fmt.Errorf("reading pull request #%d: %w", n, err)
	}
	head := ""
	if pr.Head.Repo != nil {
		head = pr.Head.Repo.FullName
	}
	if !strings.EqualFold(head, d.repo) {
		if head == "" {
			head = "a deleted repository"
		}
		return Task{}, &Skip{fmt.Sprintf("Pull request #%d's branch is in %s, not %s: gemini-ls does not work on a fork's pull request, whose code never runs with this repository's secrets.", n, head, d.repo)}
	}
	if pr.State != "" && pr.State != "open" {
		return Task{}, &Skip{fmt.Sprintf("Pull request #%d is %s: gemini-ls goes on only with an open pull request.", n, pr.State)}
	}
	if pr.Head.Ref == "" || pr.Head.Ref == ev.Repository.DefaultBranch {
		return Task{}, &Skip{fmt.Sprintf("Pull request #%d's branch is the default branch (%s): gemini-ls does not push to it.", n, pr.Head.Ref)}
	}
	title := or(pr.Title, ev.Issue.Title)
	prompt := fmt.Sprintf("Pull request #%d: %s\n\nThis is a follow-up on pull request #%d: its branch %s is checked out, with the work done on it so far (see git log %s..HEAD). Do what is asked below, on top of that work.\n\n%s",
		n, title, n, pr.Head.Ref, pr.Base.Ref, request)
	return Task{Prompt: prompt, Title: title, Base: pr.Base.Ref, Issue: n, FollowUp: true, Branch: pr.Head.Ref}, nil
}

// maxTask bounds a task name.
const maxTask = 100

// checkTaskName refuses a task name that is not one part of a branch
// name gemini/<task>: empty, longer than maxTask, with a slash, a
// leading dash or dot, "..", or anything but ASCII letters, digits,
// '.', '_' and '-' (git check-ref-format checks the branch again).
func checkTaskName(task string) error {
	bad := func(why string) error {
		return fmt.Errorf("the task input %q cannot name the branch gemini/<task>: %s", task, why)
	}
	switch {
	case len(task) > maxTask:
		return bad(fmt.Sprintf("it is longer than %d characters", maxTask))
	case strings.Contains(task, "/"):
		return bad("it holds a slash (the branch is one level below gemini/)")
	case strings.HasPrefix(task, "-"), strings.HasPrefix(task, "."):
		return bad("it starts with a dash or a dot")
	case strings.Contains(task, ".."), strings.HasSuffix(task, "."), strings.HasSuffix(task, ".lock"):
		return bad("git refuses .. in a branch name, or one ending in . or .lock")
	}
	for _, r := range task {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return bad(fmt.Sprintf("it holds %q (only letters, digits, '.', '_' and '-')", r))
		}
	}
	return nil
}

// mayWrite is nil when user, who did what, may push to the repository:
// their association (when the event gives one) is a writer's, and
// GitHub's permission API says so; else a *Skip saying why not.
func mayWrite(ctx context.Context, permission permissionOf, user, association, what string) error {
	if user == "" {
		return &Skip{fmt.Sprintf("The event (%s) names nobody who did it, so nobody's write access can be checked; nothing runs.", what)}
	}
	if association != "" && !writer(association) {
		return &Skip{fmt.Sprintf("@%s %s, but their association with the repository is %s, not OWNER, MEMBER or COLLABORATOR: only people with write access can start gemini-ls, so nothing runs.", user, what, association)}
	}
	p, err := permission(ctx, user)
	if err != nil {
		return fmt.Errorf("checking @%s's write access: %w", user, err)
	}
	if !p.CanWrite() {
		return &Skip{fmt.Sprintf("@%s %s, but their permission on the repository is %s, not write, maintain or admin: only people with write access can start gemini-ls, so nothing runs.", user, what, p)}
	}
	return nil
}

// mention is @gemini-ls as a word (not @gemini-lsx, not mail@gemini-ls),
// compiled where it is used: nothing runs at init.
const mention = `(?i)(^|[^\w@.-])@gemini-ls($|[^\w-])`

func mentions(body string) bool { return regexp.MustCompile(mention).MatchString(body) }

// issueTask is the task of the event's issue, request (a comment's) after
// it when given; from the action's base input, when given.
func (d decider) issueTask(ev event, request string) Task {
	is := ev.Issue
	var b strings.Builder
	fmt.Fprintf(&b, "Issue #%d: %s\n\n%s", is.Number, strings.TrimSpace(is.Title), strings.TrimSpace(is.Body))
	if request != "" {
		b.WriteString("\n\n" + request)
	}
	return Task{
		Prompt: strings.TrimSpace(b.String()),
		Title:  strings.TrimSpace(is.Title),
		Issue:  is.Number,
		Base:   or(d.inputs.Base),
		Branch: fmt.Sprintf("gemini/issue-%d-%s", is.Number, ghtask.Slug(is.Title)),
	}
}
