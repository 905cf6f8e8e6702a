package action

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/github"
)

// Mention is what a comment must name to start the agent.
const Mention = "@gemini-ls"

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
	// Branch is gemini/<slug>: one per task, so that a task run again
	// (a comment on the same issue) updates its pull request.
	Branch string
}

// Skip is an event that starts nothing: Why says, in a sentence, why.
type Skip struct{ Why string }

func (s *Skip) Error() string { return s.Why }

// event is what is read of the payloads of the events handled.
type event struct {
	Action string `json:"action"`
	Inputs struct {
		Prompt  string `json:"prompt"`
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
var writers = map[string]bool{"OWNER": true, "MEMBER": true, "COLLABORATOR": true}

// permissionOf asks GitHub for a user's permission on the repository.
type permissionOf func(ctx context.Context, user string) (github.Permission, error)

// decide is the task the event asks for, or a *Skip saying why nothing
// runs; another error when the event cannot be read.
func decide(ctx context.Context, name string, payload []byte, permission permissionOf) (Task, error) {
	var ev event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return Task{}, fmt.Errorf("reading the %s event: %w", name, err)
	}
	switch name {
	case "workflow_dispatch":
		prompt := strings.TrimSpace(ev.Inputs.Prompt)
		if prompt == "" {
			return Task{}, &Skip{"The workflow was started without a prompt (its input prompt is empty), so there is nothing to do."}
		}
		t := Task{Prompt: prompt, Title: firstLine(prompt), Base: strings.TrimSpace(ev.Inputs.Base), Model: strings.TrimSpace(ev.Inputs.Model), Session: strings.TrimSpace(ev.Inputs.Session)}
		t.Branch = "gemini/" + slug(t.Title)
		return t, nil
	case "issues":
		if ev.Issue == nil {
			return Task{}, fmt.Errorf("reading the issues event: it names no issue")
		}
		if ev.Action != "labeled" && ev.Action != "assigned" {
			return Task{}, &Skip{fmt.Sprintf("Issue #%d was %s; only an issue labelled or assigned starts gemini-ls.", ev.Issue.Number, ev.Action)}
		}
		if err := mayWrite(ctx, permission, ev.Sender.Login, "", fmt.Sprintf("%s issue #%d", ev.Action, ev.Issue.Number)); err != nil {
			return Task{}, err
		}
		return issueTask(ev, ""), nil
	case "issue_comment":
		if ev.Issue == nil || ev.Comment == nil {
			return Task{}, fmt.Errorf("reading the issue_comment event: it names no issue or comment")
		}
		if ev.Action != "created" {
			return Task{}, &Skip{fmt.Sprintf("A comment on #%d was %s; only a new comment starts gemini-ls.", ev.Issue.Number, ev.Action)}
		}
		if !mentions(ev.Comment.Body) {
			return Task{}, &Skip{fmt.Sprintf("The comment on #%d does not mention %s.", ev.Issue.Number, Mention)}
		}
		who := ev.Comment.User.Login
		if err := mayWrite(ctx, permission, who, ev.Comment.AuthorAssociation, fmt.Sprintf("commented on #%d", ev.Issue.Number)); err != nil {
			return Task{}, err
		}
		return issueTask(ev, fmt.Sprintf("Request from @%s in a comment:\n\n%s", who, strings.TrimSpace(ev.Comment.Body))), nil
	}
	return Task{}, &Skip{fmt.Sprintf("gemini-ls action handles workflow_dispatch, issues and issue_comment events, not %s.", name)}
}

// mayWrite is nil when user, who did what, may push to the repository:
// their association (when the event gives one) is a writer's, and
// GitHub's permission API says so; else a *Skip saying why not.
func mayWrite(ctx context.Context, permission permissionOf, user, association, what string) error {
	if user == "" {
		return &Skip{fmt.Sprintf("The event (%s) names nobody who did it, so nobody's write access can be checked; nothing runs.", what)}
	}
	if association != "" && !writers[association] {
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

// mention is @gemini-ls as a word: not @gemini-lsx, not mail@gemini-ls.
var mention = regexp.MustCompile(`(?i)(^|[^\w@.-])@gemini-ls($|[^\w-])`)

func mentions(body string) bool { return mention.MatchString(body) }

// issueTask is the task of the event's issue, request (a comment's) after
// it when given.
func issueTask(ev event, request string) Task {
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
		Branch: fmt.Sprintf("gemini/issue-%d-%s", is.Number, slug(is.Title)),
	}
}

// firstLine is s's first line that is not blank, cut to 72 runes.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return cut(line, 72)
		}
	}
	return ""
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// maxSlug bounds a branch's slug.
const maxSlug = 40

// slug is s as a branch name's part: lower-case ASCII letters and
// digits, runs of anything else one dash, at most maxSlug bytes; "task"
// when nothing is left.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= maxSlug {
				break
			}
			continue
		}
		dash = true
	}
	out := strings.Trim(b.String(), "-")
	if out == "" {
		return "task"
	}
	return out
}

// TaskName is the task a prompt started from the editor is given: the
// slug of its first line, then "-" and suffix (a few random digits, so
// that two tasks alike get two branches). Its branch is gemini/<task>.
func TaskName(prompt, suffix string) string {
	return slug(firstLine(prompt)) + "-" + suffix
}
