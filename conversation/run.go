package conversation

import (
	"context"
	"errors"
	"fmt"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/setup"
)

// Session is what a turn runs in: an agent session and the setup it was
// built from (its tools, the user's commands, the workspace).
type Session struct {
	Agent *agent.Session
	Built *setup.Built
}

// CommandError is a command that was not run, and why, worded for the
// user; nothing was sent to the model.
type CommandError struct {
	// Command is the command as the user knows it ("custom command
	// /review (project)").
	Command string
	Err     error
}

func (e *CommandError) Error() string { return fmt.Sprintf("%s was not run: %v", e.Command, e.Err) }
func (e *CommandError) Unwrap() error { return e.Err }

// Run runs in as the turn's prompt in sess, emitting every event on the
// caller's goroutine, and says how the turn ended. A prompt "/name args"
// naming one of the user's commands sends the model what the command
// expands to (each !{…} it runs decided by the session's approval door
// as a run_shell_command call of it is), the command files skipped and
// the expansion's notes told first as notices; one that cannot be
// expanded is a *CommandError. Any other prompt goes as typed, as Gemini
// CLI sends a "/xyz" that names no command. A refused prompt (the agent
// session dropped meanwhile) is the agent's error.
func (t *Turn) Run(sess Session, in agent.Input, emit func(agent.Event)) (agent.PromptResult, error) {
	if emit == nil {
		emit = func(agent.Event) {}
	}
	in, err := expand(t.ctx, sess, in, emit)
	if err != nil {
		if t.ctx.Err() != nil {
			return agent.PromptResult{StopReason: agent.StopCancelled, Err: t.ctx.Err()}, nil
		}
		return agent.PromptResult{}, err
	}
	return sess.Agent.Prompt(t.ctx, in, emit)
}

// expand is what in sends the model: in itself, unless it names one of
// the user's commands.
func expand(ctx context.Context, sess Session, in agent.Input, emit func(agent.Event)) (agent.Input, error) {
	inv, ok := commands.Parse(in.Text)
	if !ok || inv.Name == "" {
		return in, nil
	}
	user := sess.Built.UserCommands(ctx)
	if !user.Has(inv.Name) {
		return in, nil
	}
	for _, err := range user.Errs {
		emit(agent.Event{Kind: agent.EventNotice, Text: err.Error()})
	}
	ws := sess.Built.Workspace()
	var dir string
	if roots := ws.Roots(); len(roots) > 0 {
		dir = roots[0]
	}
	exp, err := user.Expand(ctx, inv, sess.Built.CommandShell(sess.Agent, dir), commands.WorkspaceFiles{WS: ws})
	if err != nil {
		return in, &CommandError{Command: user.Source(inv.Name), Err: err}
	}
	for _, note := range exp.Notes {
		emit(agent.Event{Kind: agent.EventNotice, Text: "/" + inv.Name + ": " + note})
	}
	return agent.Input{Command: inv.Raw, Parts: append(exp.Parts, in.Parts...), Editor: in.Editor}, nil
}

// Resume is the session id of ag names, live or saved; "latest" is the
// most recently updated one of root. An id naming none is an
// *agent.UnknownSessionError.
func Resume(ctx context.Context, ag *agent.Agent, id, root string) (*agent.Session, error) {
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
	_, ok := errors.AsType[*agent.UnknownSessionError](err)
	return ok
}
