package action

import (
	"fmt"
	"github.com/gemini-ls/gemini-ls/internal/ghtask"
	"regexp"
	"strings"
)

// report is what a run did, as the commit, the pull request and the
// step summary say it.
type report struct {
	task    Task
	res     AgentResult
	changes []Change
	refused []string
	base    string
	session string // the session file's copy
}

// summary is the agent's own summary line, "" when it wrote none.
func (r report) summary() string {
	m := regexp.MustCompile(summaryLine).FindAllStringSubmatch(r.res.Response, -1)
	if len(m) == 0 {
		return ""
	}
	return ghtask.Cut(strings.Trim(m[len(m)-1][1], "*` "), 72)
}

// commitMessage is the agent's summary line, else the task's title;
// the task (and its issue) after a blank line.
func (r report) commitMessage() string {
	subject := r.summary()
	if subject == "" {
		subject = ghtask.Cut(r.task.Title, 72)
	}
	body := "Task: " + r.task.Title
	if r.task.Issue != 0 {
		body += fmt.Sprintf(" (#%d)", r.task.Issue)
	}
	return subject + "\n\n" + body + "\n\nMade by gemini-ls action."
}

// answer is the agent's answer without its summary line.
func (r report) answer() string {
	return strings.TrimSpace(regexp.MustCompile(summaryLine).ReplaceAllString(r.res.Response, ""))
}

// body is the pull request's body: the agent's summary and answer, the
// files changed, the turns and tokens, what was refused, the session.
func (r report) body() string {
	var b strings.Builder
	if s := r.summary(); s != "" {
		fmt.Fprintf(&b, "**Summary:** %s\n\n", s)
	}
	if r.task.Issue != 0 && !r.task.FollowUp {
		fmt.Fprintf(&b, "For #%d.\n\n", r.task.Issue)
	}
	if a := r.answer(); a != "" {
		fmt.Fprintf(&b, "%s\n\n", quote(a))
	}
	fmt.Fprintf(&b, "### Files changed (%d)\n\n", len(r.changes))
	for _, c := range r.changes {
		fmt.Fprintf(&b, "- %s `%s`\n", statusWord(c.Status), c.Path)
	}
	b.WriteString("\n")
	if len(r.refused) > 0 {
		fmt.Fprintf(&b, "### Left out\n\nThe agent may not change .github/workflows; these changes were not committed:\n\n")
		for _, p := range r.refused {
			fmt.Fprintf(&b, "- `%s`\n", p)
		}
		b.WriteString("\n")
	}
	b.WriteString(r.figures())
	if r.res.Exit != 0 {
		fmt.Fprintf(&b, "\n**The agent did not finish** (exit status %d): %s\n", r.res.Exit, r.res.Error)
	}
	if r.res.SessionID != "" {
		fmt.Fprintf(&b, "\nSession `%s`: its file is this run's artifact; to continue it in your clone, `gemini-ls run --resume path/to/%s -p \"...\"`.\n", r.res.SessionID, baseName(r.session))
	}
	b.WriteString("\n_Opened by gemini-ls action: a draft, for a person to review._\n")
	return b.String()
}

// figures is the turns and tokens, one line.
func (r report) figures() string {
	return fmt.Sprintf("**Turns:** %d · **Tokens:** %d in, %d out, %d total\n", r.res.Requests, r.res.InputTokens, r.res.OutputTokens, r.res.TotalTokens)
}

// stepSummary is the step summary's Markdown.
func (r report) stepSummary(prURL string) string {
	var b strings.Builder
	b.WriteString("### gemini-ls\n\n")
	fmt.Fprintf(&b, "**Task:** %s\n\n", r.task.Title)
	if prURL != "" {
		fmt.Fprintf(&b, "**Pull request:** %s (branch `%s` from `%s`)\n\n", prURL, r.task.Branch, r.base)
	} else {
		b.WriteString("The agent changed nothing, so nothing was committed.\n\n")
	}
	fmt.Fprintf(&b, "**Files changed:** %d\n\n", len(r.changes))
	if len(r.refused) > 0 {
		fmt.Fprintf(&b, "**Left out** (.github/workflows may not be changed): %s\n\n", strings.Join(r.refused, ", "))
	}
	b.WriteString(r.figures())
	return b.String()
}

// nothingComment answers an issue whose task changed nothing.
func (r report) nothingComment() string {
	var b strings.Builder
	b.WriteString("gemini-ls looked at this and changed nothing.\n\n")
	if a := r.answer(); a != "" {
		b.WriteString(quote(a) + "\n\n")
	}
	b.WriteString(r.figures())
	return b.String()
}

func statusWord(s string) string {
	switch s {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "M":
		return "modified"
	case "T":
		return "type changed"
	}
	return s
}

// quote is text as a Markdown block quote.
func quote(text string) string {
	return "> " + strings.ReplaceAll(text, "\n", "\n> ")
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
