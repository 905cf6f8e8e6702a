package builtin

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// help lists every command available now, a built-in's subcommands under
// it, as Gemini CLI's /help does; each with its other names, as 0.61's
// documentation shows them ("/quit (or /exit)").
func help(_ context.Context, env Env, _ string) (Reply, error) {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range env.Commands {
		fmt.Fprintf(&b, "- `/%s`%s", c.Name, otherNames("/", c.AltNames))
		if c.Description != "" {
			b.WriteString(" — " + c.Description)
		}
		if c.Source != commands.BuiltIn {
			fmt.Fprintf(&b, " (%s)", c.Source)
		}
		b.WriteByte('\n')
		if c.Source != commands.BuiltIn {
			continue
		}
		builtin, _ := Find(c.Name)
		for _, s := range builtin.Subcommands {
			if !s.Hidden {
				fmt.Fprintf(&b, "  - `%s`%s — %s\n", strings.TrimSpace(s.Name+" "+s.Hint), otherNames("", s.AltNames), s.Description)
			}
		}
	}
	var terminal []string
	for _, c := range TerminalOnlyCommands() {
		terminal = append(terminal, "`/"+c.Name+"`")
	}
	b.WriteString("\nGemini CLI's terminal-only commands are answered with where the editor does the same: " + strings.Join(terminal, ", ") + ".\n")
	b.WriteString("\nA prompt that starts with `/` and a name that is no command's (`/mem`) is refused, with the nearest names; a path (`/usr/bin/env …`) goes to the model as typed.")
	return Reply{Text: b.String()}, nil
}

// otherNames is " (or `/a`, `/b`)" for names, "" for none.
func otherNames(prefix string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + prefix + n + "`"
	}
	return " (or " + strings.Join(quoted, ", ") + ")"
}

// about says what is running, never a secret: as Gemini CLI's /about,
// for a bug report.
func about(ctx context.Context, env Env, _ string) (Reply, error) {
	var b strings.Builder
	b.WriteString("About gemini-ls\n")
	fmt.Fprintf(&b, "- Version: %s\n", orUnknown(env.Version))
	// As Gemini CLI 0.61's /about: the model as configured, an alias by
	// its display name ("Auto (Gemini 3)"); then where the last prompt
	// went, which an alias does not say.
	fmt.Fprintf(&b, "- Model: %s\n", models.Display(env.Built.Agent.ModelSetting()))
	if last := env.Session.LastModel(); last != "" {
		fmt.Fprintf(&b, "- Last prompt's model: %s\n", last)
	}
	fmt.Fprintf(&b, "- Auth: %s\n", orUnknown(env.Built.AuthStatus().Type))
	// 0.61's "Sandbox Environment": "no sandbox", or how commands run.
	fmt.Fprintf(&b, "- Sandbox: %s\n", env.Built.Sandbox.Describe())
	fmt.Fprintf(&b, "- OS: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "- Go: %s", runtime.Version())
	b.WriteString(antigravityFiles(ctx, env))
	return Reply{Text: b.String()}, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
