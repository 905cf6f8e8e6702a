package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
)

// Env is what a built-in works on.
type Env struct {
	// Session is the conversation's agent session; no prompt runs in it
	// while a built-in runs.
	Session *agent.Session
	// Built is its agent, tools, memory, settings, model and auth.
	Built *setup.Built
	// Root is the workspace root the conversation is in.
	Root    string
	Version string
	// Commands is every command available now, the built-ins and the
	// user's, in the order shown: what /help lists.
	Commands []commands.Command
	// User are the user's commands as read for this prompt: the custom
	// commands with their files, the MCP prompts, the files skipped.
	User commands.UserCommands
	// Port is the turn's user (dialog.Port): what a built-in runs on the
	// way is shown there, as a prompt's events are (the call /restore
	// proposes again), and its questions (/extensions install's consent,
	// a rewind's conflicts, a restore's preview) are put there, as the
	// agent's are; nil when nobody can be told or asked.
	Port dialog.Port
	// Agents are the subagents /agents manages; nil when the session has
	// none (/agents then says so).
	Agents Agents
	// Trust puts /permissions trust's question; nil when nobody can
	// answer it.
	Trust dialog.TrustAsker
	// Unattended: no person typed the command (headless: text from a
	// pipe or -p), so a command that Changes what the agent may do is
	// refused (a *TypedOnlyError).
	Unattended bool
	// Piped: the command came from text piped in (dialog.Input.Piped), so
	// one that Writes files is refused too (a *PipedError).
	Piped bool
}

// Reply is what a built-in did.
type Reply struct {
	// Text is the Markdown answer shown to the user; no model call made it.
	Text string
	// Input, when set, is a prompt to send to the model instead (/init).
	Input *dialog.Input
	// Mode, when set, is the approval mode the command switched the
	// session to (/plan), for the front end to show.
	Mode dialog.ApprovalMode
	// Model, when set, is the model the command chose for every session
	// from the next request on (/model set), for the front end to show.
	Model string
	// CommandsChanged: the commands were read again (/commands reload),
	// for the front end to list them anew.
	CommandsChanged bool
}

// Builtin is one of gemini-ls's own commands.
type Builtin struct {
	commands.Command
	// Run does the command with what followed its name. A command of
	// subcommands runs the one the first word of args names, the first
	// when args is empty.
	Run func(ctx context.Context, env Env, args string) (Reply, error)
	// Subcommands are what /help lists under the command; nil when it
	// has none.
	Subcommands []Builtin
	// AsksModel: Run itself calls the model (/compress's summary).
	AsksModel bool
	// Hidden: a subcommand that runs but is not listed, as Gemini CLI
	// 0.61's compatibility ones (/chat checkpoints).
	Hidden bool
	// Changes, when set, is what of the agent's permissions or set-up
	// the command changes ("folder trust", "the MCP servers"): it runs
	// only where a person types it, never Unattended, since text a
	// script pipes in may come from anywhere.
	Changes string
	// Writes, when set, is what files the command writes, where its
	// arguments say ("the file you name", "your files, as a checkpoint
	// had them"), without the approval door's question: it runs from
	// text a person typed (-p too, in a script they wrote), never from
	// text piped in, which may come from anywhere.
	Writes string
}

// PipedError is a command refused because it Writes files and came from
// text piped in (Env.Piped).
type PipedError struct {
	// Command is the command's name and subcommand's ("chat share").
	Command string
	Writes  string
}

func (e *PipedError) Error() string {
	return fmt.Sprintf("/%s was not run: it writes %s, and it came from text piped in, which may come from anywhere; give it with -p to run it", e.Command, e.Writes)
}

// TypedOnlyError is a command refused because it Changes what the agent
// may do and no person typed it (Env.Unattended).
type TypedOnlyError struct {
	// Command is the command's name and subcommand's ("mcp disable").
	Command string
	Changes string
}

func (e *TypedOnlyError) Error() string {
	return fmt.Sprintf("/%s was not run: it changes %s, so it runs only where a person types it, in an editor's chat or Gemini CLI's interactive terminal; text from a pipe or -p never changes what the agent may do", e.Command, e.Changes)
}

// Invoke runs b with args, as Run does, unless b Changes what the agent
// may do and no person typed it: then it runs nothing and says so. Every
// command, and every subcommand, runs through it.
func (b Builtin) Invoke(ctx context.Context, env Env, args string) (Reply, error) {
	if b.Changes != "" && env.Unattended {
		return Reply{}, &TypedOnlyError{Command: b.Name, Changes: b.Changes}
	}
	if b.Writes != "" && env.Piped {
		return Reply{}, &PipedError{Command: b.Name, Writes: b.Writes}
	}
	if feature := adminLocked(b.Name, env.Built); feature != "" {
		return Reply{}, errors.New(settings.AdminDisabledMessage(feature))
	}
	return b.Run(ctx, env, args)
}

// adminLocked is 0.61's name of the feature the command called name
// manages when the system settings' admin keys turn it off, as 0.61
// then answers /extensions, /mcp and /skills with its refusal alone;
// "" when the command is not locked.
func adminLocked(name string, built *setup.Built) string {
	if built == nil {
		return ""
	}
	admin := built.Settings.Admin
	switch {
	case name == "extensions" && !admin.Extensions.On():
		return "Extensions"
	case name == "mcp" && !admin.MCP.On():
		return "MCP"
	case name == "skills" && !admin.Skills.On():
		return "Agent skills"
	}
	return ""
}

// Local reports whether b answers without the model: neither a prompt
// (/init) nor a command that asks the model itself (/compress).
func (b Builtin) Local() bool { return !b.Prompt && !b.AsksModel }

// Table is every built-in, in the order /help and completions show them
// (Gemini CLI's: by name), with Gemini CLI 0.61's other names for each
// (its altNames, and /help's "/?" of its documentation).
func Table() []Builtin {
	return []Builtin{
		{Command: command("about", "Show the version, the model and how gemini-ls signs in", ""), Run: about},
		withSubcommands(command("agents", "Manage agents", ""), agentsSubcommands()),
		withSubcommands(command("auth", "Show how gemini-ls signs in, or sign out of Google", ""), authSubcommands()),
		{Command: command("bug", "Make the URL of a bug report on gemini-ls, with what is running", "[description]"), Run: bug},
		withSubcommands(also(command("chat", "Save, resume, list, delete and share conversation checkpoints (shared with Gemini CLI)", ""), "resume"), chatSubcommands()),
		{Command: also(command("clear", "Clear the conversation: the next prompt starts afresh", ""), "new"), Run: clearConversation},
		withSubcommands(command("commands", "List or reload the custom commands (.toml files)", ""), commandsSubcommands()),
		{Command: also(command("compress", "Replace the older part of the history with a summary, now", ""), "summarize", "compact"), Run: compress, AsksModel: true},
		withSubcommands(also(command("directory", "Manage workspace directories", ""), "dir"), directorySubcommands()),
		{Command: command("docs", "Show where gemini-ls's documentation is", ""), Run: docs},
		{Command: command("export-session", "Export the current session to a JSON file", "<file>"), Run: exportSession, Writes: "the file you name"},
		withSubcommands(command("extensions", "List the installed extensions, whether each is enabled and what it contributes", ""), extensionsSubcommands()),
		{Command: also(command("help", "List the commands", ""), "?"), Run: help},
		withSubcommands(command("hooks", "Manage hooks", ""), hooksSubcommands()),
		{Command: prompt(command("init", "Analyze the project and write a GEMINI.md file for it", "")), Run: initProject},
		mcpCommand(),
		withSubcommands(command("memory", "Show, reload or list the memory (GEMINI.md, MEMORY.md), or review its inbox", ""), memorySubcommands()),
		withSubcommands(command("model", "Show the models to choose from, or set the model (--persist: for future sessions too)", ""), modelSubcommands()),
		withSubcommands(command("permissions", "Manage folder trust settings and other permissions", ""), permissionsSubcommands()),
		planCommand(),
		withSubcommands(command("policies", "Manage policies", ""), policiesSubcommands()),
		privacyCommand(),
		{Command: also(command("quit", "Say how to end the conversation here, where there is no terminal to exit", quitHint), "exit"), Run: quit},
		{Command: command("restore", "List the checkpoints taken before edits, or restore the files and the conversation to one", restoreHint), Run: restore, Writes: "your files, as a checkpoint had them"},
		{Command: command("rewind", "List the prompts, or go back to before one: the conversation, the agent's file changes, or both", rewindHint), Run: rewind},
		{Command: command("setup-github", "Set up GitHub Actions to triage issues and review PRs with Gemini", ""), Run: setupGitHub},
		withSubcommands(command("skills", "List or reload the agent skills (SKILL.md) the model may activate", ""), skillsSubcommands()),
		withSubcommands(also(command("stats", "Show the session's usage: its tokens and prompts, each model's requests, each tool's calls", ""), "usage"), statsSubcommands()),
		withSubcommands(also(command("tasks", "List the session's background processes, or kill one", ""), "bg", "background"), tasksSubcommands()),
		withSubcommands(command("tools", "List the tools the model can call", ""), toolsSubcommands()),
		{Command: command("upgrade", "Upgrade your Gemini Code Assist tier for higher limits", ""), Run: upgrade},
	}
}

// Find is the built-in called name, else the one name is another name of,
// as Gemini CLI looks a command up (parseSlashCommand: a name first).
func Find(name string) (Builtin, bool) {
	return find(Table(), name)
}

// find is the command of list called name, else the one name is another
// name of.
func find(list []Builtin, name string) (Builtin, bool) {
	for _, b := range list {
		if b.Name == name {
			return b, true
		}
	}
	for _, b := range list {
		if slices.Contains(b.AltNames, name) {
			return b, true
		}
	}
	return Builtin{}, false
}

func command(name, description, hint string) commands.Command {
	return commands.Command{Name: name, Description: description, Hint: hint, Source: commands.BuiltIn}
}

// also gives c Gemini CLI's other names for it.
func also(c commands.Command, altNames ...string) commands.Command {
	c.AltNames = altNames
	return c
}

// prompt marks c as one that sends a prompt to the model.
func prompt(c commands.Command) commands.Command {
	c.Prompt = true
	return c
}

// withSubcommands is c made of subs: its hint lists them (the hidden
// ones aside), and it runs the one its first word names, the first when
// there is none.
func withSubcommands(c commands.Command, subs []Builtin) Builtin {
	var hints []string
	for _, s := range subs {
		if !s.Hidden {
			hints = append(hints, strings.TrimSpace(s.Name+" "+s.Hint))
		}
	}
	c.Hint = strings.Join(hints, " | ")
	b := Builtin{Command: c, Subcommands: subs}
	b.Run = func(ctx context.Context, env Env, args string) (Reply, error) {
		name, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
		if name == "" {
			name = subs[0].Name
		}
		if s, ok := find(subs, name); ok {
			reply, err := s.Invoke(ctx, env, strings.TrimSpace(rest))
			if refused, ok := errors.AsType[*TypedOnlyError](err); ok {
				refused.Command = c.Name + " " + refused.Command
			}
			return reply, err
		}
		return Reply{}, b.usage(fmt.Sprintf("unknown /%s subcommand %q", c.Name, name))
	}
	return b
}

// usage is an error saying what went wrong, and how the command is used.
func (b Builtin) usage(problem string) error {
	return fmt.Errorf("%s; usage: /%s", problem, strings.TrimSpace(b.Name+" "+b.Hint))
}

// subUsage is usage for subcommand sub of parent.
func subUsage(parent, sub, hint, problem string) error {
	return fmt.Errorf("%s; usage: /%s %s", problem, parent, strings.TrimSpace(sub+" "+hint))
}

// size is n bytes in words.
func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
