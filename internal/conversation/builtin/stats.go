package builtin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// statsSubcommands are /stats's, as Gemini CLI's: session (the default),
// model and tools.
func statsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("session", "Show the session's token usage and prompt count", ""), Run: sessionStats},
		{Command: command("model", "Show each model's requests, errors, latency and tokens", ""), Run: modelStats},
		{Command: command("tools", "Show each tool's calls, success rate and duration, and the user's decisions", ""), Run: toolStats},
	}
}

// sessionStats shows what the session has used, over restarts.
func sessionStats(_ context.Context, env Env, _ string) (Reply, error) {
	info := env.Session.Info()
	u := info.Usage
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\n", info.ID)
	fmt.Fprintf(&b, "- Model: %s\n", models.Display(env.Built.Agent.ModelSetting()))
	fmt.Fprintf(&b, "- Approval mode: %s\n", env.Built.Agent.ApprovalMode())
	fmt.Fprintf(&b, "- Prompts: %d\n", info.Prompts)
	fmt.Fprintf(&b, "- Tokens: %d input, %d output, %d thinking, %d in all\n", u.PromptTokens, u.CandidatesTokens, u.ThoughtsTokens, u.TotalTokens)
	fmt.Fprintf(&b, "- Cached: %d of the input tokens (%s), served from the model's context cache\n", u.CachedTokens, percent32(u.CachedTokens, u.PromptTokens))
	if c := info.Context; c.Size > 0 {
		fmt.Fprintf(&b, "- Context: %d of the model's %d tokens (%s) at the last request\n", c.Used, c.Size, percent32(c.Used, c.Size))
	}
	fmt.Fprintf(&b, "- Started: %s", info.CreatedAt.UTC().Format(time.RFC3339))
	if c, ok := env.Built.CompletionStats(); ok {
		fmt.Fprintf(&b, "\n\nCompletion in this editor, since gemini-ls started\n")
		fmt.Fprintf(&b, "- Suggestions: %d shown, %d accepted, %d partially accepted\n", c.Shown, c.Accepted, c.PartiallyAccepted)
		fmt.Fprintf(&b, "- Requests: %d, of which %d asked the model, %d answered from the cache, %d dropped as stale, %d superseded\n",
			c.Requests, c.ModelCalls, c.CacheHits, c.Stale, c.Cancelled+c.Debounced)
		fmt.Fprintf(&b, "- Next edits asked: %d", c.NextEdits)
	}
	return Reply{Text: b.String()}, nil
}

// since says what the per-model and per-tool counts cover: they are not
// saved with the session, as /stats session's are.
const since = "since gemini-ls started or resumed this session"

// modelStats shows each model's requests, errors, latency and tokens, a
// column per model, as Gemini CLI's /stats model does.
func modelStats(_ context.Context, env Env, _ string) (Reply, error) {
	models := env.Session.Stats().Models
	if len(models) == 0 {
		return Reply{Text: "No model requests have been made " + since + "."}, nil
	}
	names := slices.Sorted(maps.Keys(models))
	var b strings.Builder
	fmt.Fprintf(&b, "Model requests %s:\n\n|  | %s |\n| --- |%s\n", since, strings.Join(names, " | "), strings.Repeat(" ---: |", len(names)))
	row := func(metric string, value func(dialog.ModelStats) string) {
		b.WriteString("| " + metric + " |")
		for _, name := range names {
			b.WriteString(" " + value(models[name]) + " |")
		}
		b.WriteString("\n")
	}
	row("Requests", func(m dialog.ModelStats) string { return fmt.Sprint(m.Requests) })
	row("Errors", func(m dialog.ModelStats) string {
		return fmt.Sprintf("%d (%s)", m.Errors, percent(m.Errors, m.Requests))
	})
	row("Avg latency", func(m dialog.ModelStats) string { return average(m.Latency, m.Requests) })
	row("Tokens", func(m dialog.ModelStats) string { return fmt.Sprint(m.Tokens.TotalTokens) })
	row("↳ Input", func(m dialog.ModelStats) string { return fmt.Sprint(m.Tokens.PromptTokens) })
	if anyCached(models) {
		// As 0.61's /stats model: the row only once the cache served some.
		row("↳ Cache reads", func(m dialog.ModelStats) string {
			return fmt.Sprintf("%d (%s)", m.Tokens.CachedTokens, percent32(m.Tokens.CachedTokens, m.Tokens.PromptTokens))
		})
	}
	row("↳ Thoughts", func(m dialog.ModelStats) string { return fmt.Sprint(m.Tokens.ThoughtsTokens) })
	row("↳ Output", func(m dialog.ModelStats) string { return fmt.Sprint(m.Tokens.CandidatesTokens) })
	return Reply{Text: strings.TrimSuffix(b.String(), "\n")}, nil
}

// toolStats shows each tool's calls, success rate and average duration,
// then the user's decisions on the calls that asked, as Gemini CLI's
// /stats tools does: its agreement rate is of the calls reviewed one by
// one, which an "always allow" is not.
func toolStats(_ context.Context, env Env, _ string) (Reply, error) {
	byTool := env.Session.Stats().Tools
	if len(byTool) == 0 {
		return Reply{Text: "No tool calls have been made " + since + "."}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tool calls %s:\n\n| Tool | Calls | Success rate | Avg duration |\n| --- | ---: | ---: | ---: |\n", since)
	var d dialog.Decisions
	for _, name := range slices.Sorted(maps.Keys(byTool)) {
		t := byTool[name]
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", name, t.Calls, percent(t.Success, t.Calls), average(t.Duration, t.Calls))
		d.Accept += t.Decisions.Accept
		d.Reject += t.Decisions.Reject
		d.Modify += t.Decisions.Modify
		d.AutoAccept += t.Decisions.AutoAccept
	}
	reviewed := d.Accept + d.Reject + d.Modify
	agreement := "--"
	if reviewed > 0 {
		agreement = percent(d.Accept, reviewed)
	}
	fmt.Fprintf(&b, "\nThe user's decisions: %d calls reviewed\n- Accepted: %d\n- Rejected: %d\n- Modified: %d\n- Agreement rate: %s\n- Allowed for the rest of the session (\"always allow\"): %d",
		reviewed, d.Accept, d.Reject, d.Modify, agreement, d.AutoAccept)
	return Reply{Text: b.String()}, nil
}

// percent is n of total, to a tenth of a percent.
func percent(n, total int) string {
	if total == 0 {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%%", float64(n)*100/float64(total))
}

// percent32 is percent of token counts.
func percent32(n, total int32) string { return percent(int(n), int(total)) }

// anyCached says whether the cache served any model's input.
func anyCached(models map[string]dialog.ModelStats) bool {
	for _, m := range models {
		if m.Tokens.CachedTokens > 0 {
			return true
		}
	}
	return false
}

// average is d over n, rounded to the millisecond.
func average(d time.Duration, n int) string {
	if n == 0 {
		return "0s"
	}
	return (d / time.Duration(n)).Round(time.Millisecond).String()
}
