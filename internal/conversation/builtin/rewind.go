package builtin

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

const rewindHint = "[<n> [conversation | code | both]]"

// rewind is Gemini CLI's /rewind as text: without arguments it lists the
// prompts with the files the agent changed at each; "/rewind <n> [mode]"
// goes back to before prompt n, taking back the conversation, the code
// or both (the default, Gemini CLI's first choice).
func rewind(ctx context.Context, env Env, args string) (Reply, error) {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return Reply{Text: rewindList(env.Session.RewindPoints())}, nil
	}
	usage := func(problem string) error {
		return fmt.Errorf("%s; usage: /rewind %s", problem, rewindHint)
	}
	if len(fields) > 2 {
		return Reply{}, usage("too many arguments")
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return Reply{}, usage(fmt.Sprintf("%q is not a prompt number", fields[0]))
	}
	var name string
	if len(fields) == 2 {
		name = fields[1]
	}
	mode, err := dialog.ParseRewindMode(name)
	if err != nil {
		return Reply{}, usage(fmt.Sprintf("unknown mode %q", fields[1]))
	}
	res, err := env.Session.Rewind(ctx, n, mode, env.Port)
	if err != nil {
		return Reply{}, fmt.Errorf("the rewind failed: %w", err)
	}
	return Reply{Text: RewindReport(res)}, nil
}

// rewindList shows the prompts, the most recent last as Gemini CLI does.
func rewindList(points []dialog.RewindPoint) string {
	if len(points) == 0 {
		return "There is nothing to rewind: the conversation has no prompts yet."
	}
	var b strings.Builder
	b.WriteString("Prompts of this conversation, the most recent last:\n")
	for _, p := range points {
		fmt.Fprintf(&b, "%d. %s", p.Prompt, oneLine(p.Text, 80))
		if len(p.Files) > 0 {
			fmt.Fprintf(&b, " — changed %s", strings.Join(quoted(p.Files), ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nRewind to before prompt n with `/rewind <n> both` (the conversation and the agent's file changes), `/rewind <n> conversation` or `/rewind <n> code`.")
	return b.String()
}

// RewindReport tells the user what a rewind did, and what it could not.
func RewindReport(res dialog.RewindResult) string {
	var b strings.Builder
	if res.Mode != dialog.RewindCode {
		fmt.Fprintf(&b, "Rewound the conversation to before prompt %d: %d %s removed.\n", res.Prompt, res.Removed, plural(res.Removed, "prompt", "prompts"))
	}
	if res.Mode != dialog.RewindConversation {
		if len(res.Files) == 0 {
			fmt.Fprintf(&b, "The agent changed no files since prompt %d.\n", res.Prompt)
		}
		for _, f := range res.Files {
			switch f.Outcome {
			case dialog.Reverted:
				fmt.Fprintf(&b, "- `%s`: reverted\n", f.Path)
			case dialog.Unchanged:
				fmt.Fprintf(&b, "- `%s`: already as it was\n", f.Path)
			case dialog.Conflict:
				fmt.Fprintf(&b, "- `%s`: conflict, not reverted: %s\n", f.Path, f.Reason)
			default:
				fmt.Fprintf(&b, "- `%s`: not reverted: %s\n", f.Path, f.Reason)
			}
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "\n%s\n", n)
	}
	return strings.TrimSpace(b.String())
}

func quoted(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "`" + p + "`"
	}
	return out
}

// oneLine is text's first line, cut to max runes.
func oneLine(text string, max int) string {
	line, _, more := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > max {
		return string(r[:max]) + "…"
	} else if more {
		return line + " …"
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
