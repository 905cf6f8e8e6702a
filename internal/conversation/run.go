package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/setup"
)

// Session is what a turn runs in: an agent session and the setup it was
// built from (its tools, the user's commands, the workspace).
type Session struct {
	Agent *agent.Session
	Built *setup.Built
	// Port is the turn's user (dialog.Port): the turn's events are
	// shown there and its questions, the agent's and the commands', put
	// there; nil: nobody is told or asked.
	Port dialog.Port
	// Trust puts /permissions trust's question; nil: nobody can answer.
	Trust dialog.TrustAsker
	// Unattended: no person typed the prompt (Config.Unattended), so a
	// built-in that changes what the agent may do is refused.
	Unattended bool
}

// CommandError is a command that was not run, and why, worded for the
// user; nothing was sent to the model.
type CommandError struct {
	// Command is the user's command as the user knows it ("custom
	// command /review (project)"); "" for a built-in, whose error says
	// its usage.
	Command string
	Err     error
}

func (e *CommandError) Error() string {
	if e.Command == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s was not run: %v", e.Command, e.Err)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Local reports whether text is a built-in command that answers without
// the model (/help, /tools, /mcp, /stats…), so it runs in a build without
// credentials (with its agent: Place.WithoutCredentials). A user's
// command of the name, or any other text, is not.
func Local(ctx context.Context, b *Build, text string) bool {
	built := b.built()
	if built.Agent == nil {
		return false
	}
	inv, ok := commands.Parse(text)
	if !ok || inv.Name == "" {
		return false
	}
	list, user := commandsOf(ctx, built)
	if user.Has(inv.Name) {
		return false
	}
	if cmd, ok := builtin.Find(inv.Name); ok {
		return cmd.Local()
	}
	answer, err := notACommand(inv, list)
	return answer != "" || err != nil
}

// Commands are the commands a prompt may start with now, in the order
// shown: the built-ins, then the user's commands (the custom commands on
// disk, the running MCP servers' prompts); one of the user's replaces a
// built-in of its name, as a later command of a name does in Gemini CLI,
// and takes its name from a built-in that has it as another name (Gemini
// CLI looks names up before other names). user is the user's, with the
// command files skipped in its Errs.
func Commands(ctx context.Context, b *Build) (list []commands.Command, user commands.UserCommands) {
	return commandsOf(ctx, b.built())
}

func commandsOf(ctx context.Context, built *setup.Built) (list []commands.Command, user commands.UserCommands) {
	user = userCommands(ctx, built)
	for _, b := range builtin.Table() {
		if user.Has(b.Name) {
			continue
		}
		c := b.Command
		c.AltNames = slices.DeleteFunc(slices.Clone(c.AltNames), user.Has)
		list = append(list, c)
	}
	return append(list, user.List...), user
}

// Run runs in as the turn's prompt in sess, showing every event on
// sess.Port from the caller's goroutine, and says how the turn ended. A prompt "!command"
// runs command in the workspace without the model (shell.go), once the
// session's approval door allows it; a prompt "/name args" runs a
// command:
//   - one of the user's sends the model what it expands to (each !{…} it
//     runs decided by the session's approval door as a run_shell_command
//     call of it is), the expansion's notes told first as notices;
//   - a built-in answers without the model, its answer emitted as the
//     turn's text (unless it is a prompt, as /init, which goes to the
//     model).
//
// The command files skipped are told first, as notices, whatever the
// command. A command that cannot run is a *CommandError. One of 0.61's
// terminal-only commands (/vim) is answered in a sentence, and any other
// name is a *CommandError naming the nearest (notACommand): where Gemini
// CLI 0.61 sends a "/xyz" that names no command to the model, gemini-ls
// sends no command there silently. A "/path/like" prompt goes as typed.
// A refused prompt (the agent session dropped meanwhile) is the
// agent's error.
func (t *Turn) Run(sess Session, in dialog.Input) (dialog.PromptResult, error) {
	emit := func(dialog.Event) {}
	if sess.Port != nil {
		emit = func(ev dialog.Event) { sess.Port.Show(t.ctx, dialog.Subagent{}, ev) }
	}
	res, err := t.run(sess, in, emit)
	if err != nil && t.ctx.Err() != nil {
		return dialog.PromptResult{StopReason: dialog.StopCancelled, Err: t.ctx.Err()}, nil
	}
	return res, err
}

func (t *Turn) run(sess Session, in dialog.Input, emit func(dialog.Event)) (dialog.PromptResult, error) {
	if command, ok := shellPrompt(in.Text); ok && !in.Piped {
		return t.shell(sess, in, command, emit)
	}
	inv, ok := commands.Parse(in.Text)
	if !ok || inv.Name == "" {
		return sess.Agent.Prompt(t.ctx, in, sess.Port)
	}
	list, user := commandsOf(t.ctx, sess.Built)
	// Told whichever command the prompt names: a file skipped may be the
	// very command meant, then refused as no command.
	for _, err := range user.Errs {
		emit(dialog.NoticeEvent{Text: err.Error()})
	}
	if user.Has(inv.Name) {
		in, err := expand(t.ctx, sess, user, inv, in, emit)
		if err != nil {
			return dialog.PromptResult{}, err
		}
		return sess.Agent.Prompt(t.ctx, in, sess.Port)
	}
	if b, ok := builtin.Find(inv.Name); ok {
		return t.builtin(sess, b, list, user, inv, in, emit)
	}
	switch answer, err := notACommand(inv, list); {
	case err != nil:
		return dialog.PromptResult{}, &CommandError{Err: err}
	case answer != "":
		emit(dialog.TextEvent{Text: answer})
		return dialog.PromptResult{StopReason: dialog.StopEndTurn, Text: answer}, nil
	}
	return sess.Agent.Prompt(t.ctx, in, sess.Port)
}

// notACommand is what gemini-ls answers, without the model, to inv, which
// names neither a built-in nor one of the user's commands: the answer to
// one of Gemini CLI 0.61's terminal-only commands (/vim), or an
// *builtin.UnknownCommandError naming the commands of list near it (a
// typo: /mem, /plna), if any. Neither for a path ("/usr/bin/env is
// broken"), which goes to the model as typed.
func notACommand(inv commands.Invocation, list []commands.Command) (answer string, err error) {
	if c, ok := builtin.FindTerminalOnly(inv.Name); ok {
		return c.Answer, nil
	}
	if !builtin.IsCommandName(inv.Name) {
		return "", nil
	}
	var known []string
	for _, c := range list {
		known = append(known, c.Name)
		known = append(known, c.AltNames...)
	}
	for _, c := range builtin.TerminalOnlyCommands() {
		known = append(known, c.Name)
	}
	return "", &builtin.UnknownCommandError{Name: inv.Name, Nearest: builtin.NearestCommands(inv.Name, known)}
}

// builtin runs built-in b: its answer is the turn's text, or the prompt
// it asks for goes to the model.
func (t *Turn) builtin(sess Session, b builtin.Builtin, list []commands.Command, user commands.UserCommands, inv commands.Invocation, in dialog.Input, emit func(dialog.Event)) (dialog.PromptResult, error) {
	env := builtin.Env{
		Session:  sess.Agent,
		Built:    sess.Built,
		Root:     root(sess.Built),
		Version:  sess.Built.Version(),
		Commands: list,
		User:     user,
		Port:     sess.Port,
		Trust:    sess.Trust,

		Unattended: sess.Unattended,
		Piped:      in.Piped,
	}
	if c := sess.Built.AgentCatalog(); c != nil { // no nil in the interface
		env.Agents = c
	}
	reply, err := b.Invoke(t.ctx, env, inv.Args)
	switch {
	case err != nil:
		return dialog.PromptResult{}, &CommandError{Err: err}
	}
	if reply.Mode != "" {
		emit(dialog.ModeEvent{Mode: reply.Mode})
	}
	if reply.Model != "" {
		emit(dialog.ModelEvent{Model: reply.Model})
	}
	if reply.CommandsChanged {
		emit(dialog.CommandsEvent{})
	}
	switch {
	case reply.Input != nil:
		// Sent as parts: the command's own prompt holds no @paths, and
		// the session is titled and its transcript kept by "/init".
		prompt := dialog.Input{Command: inv.Raw, Parts: reply.Input.Parts, Editor: in.Editor}
		if reply.Input.Text != "" {
			prompt.Parts = append([]*genai.Part{genai.NewPartFromText(reply.Input.Text)}, prompt.Parts...)
		}
		return sess.Agent.Prompt(t.ctx, prompt, sess.Port)
	}
	emit(dialog.TextEvent{Text: reply.Text})
	return dialog.PromptResult{StopReason: dialog.StopEndTurn, Text: reply.Text}, nil
}

// expand is what invocation inv of one of the user's commands sends the
// model, in's attachments and editor state after it.
func expand(ctx context.Context, sess Session, user commands.UserCommands, inv commands.Invocation, in dialog.Input, emit func(dialog.Event)) (dialog.Input, error) {
	exp, err := user.Expand(ctx, inv, commandShell(sess.Built, sess.Agent, sess.Port), commands.WorkspaceFiles{WS: sess.Built.Workspace()})
	if err != nil {
		return in, &CommandError{Command: user.Source(inv.Name), Err: err}
	}
	for _, note := range exp.Notes {
		emit(dialog.NoticeEvent{Text: "/" + inv.Name + ": " + note})
	}
	return dialog.Input{Command: inv.Raw, Parts: append(exp.Parts, in.Parts...), Editor: in.Editor}, nil
}

// resume is the session id of ag names, live or saved; "latest" is the
// most recently updated one of root. An id naming none is an
// *dialog.UnknownSessionError.
func resume(ctx context.Context, ag *agent.Agent, id, root string) (*agent.Session, error) {
	if id == "latest" {
		list, err := ag.Sessions(ctx, root)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("there is no saved session for %s", root)
		}
		id = list[0].ID
	}
	return ag.Session(ctx, id)
}

// IsUnknownSession reports whether err says a session id names none.
func IsUnknownSession(err error) bool {
	_, ok := errors.AsType[*dialog.UnknownSessionError](err)
	return ok
}
