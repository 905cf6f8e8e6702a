package acp

// Slash commands. The built-ins are conversation/builtin's table, the
// same in every front end; the user's commands (conversation/commands:
// custom commands as they are on disk, the running MCP servers' prompts)
// are read when the session starts, once its MCP servers have started,
// and at each prompt starting with "/". Both what clients are told
// (available_commands_update) and the dispatch of a "/name" prompt come
// from that one table. A built-in answers in the agent's message and ends
// the prompt with end_turn, as Gemini CLI's ACP commands do (/init sends
// the model the prompt it asks for); a user's command sends the prompt it
// expands to to the model; a prompt naming no command goes to the model
// as typed, as Gemini CLI sends it.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/conversation/builtin"
	"github.com/gemini-ls/gemini-ls/conversation/commands"
)

// commandTable is a session's commands as they stand now.
type commandTable struct {
	list    []commands.Command // for the client, in the order shown
	builtin map[string]builtin.Builtin
	user    commands.UserCommands
}

// commandTable reads the user's commands again (the custom commands on
// disk, the running MCP servers' prompts) and lays them after the
// built-ins; one of the user's replaces a built-in of its name, as a
// later command of a name does in Gemini CLI.
func (sess *session) commandTable(ctx context.Context) commandTable {
	t := commandTable{builtin: map[string]builtin.Builtin{}, user: sess.built.UserCommands(ctx)}
	for _, b := range builtin.Table() {
		if !t.user.Has(b.Name) {
			t.builtin[b.Name] = b
			t.list = append(t.list, b.Command)
		}
	}
	t.list = append(t.list, t.user.List...)
	return t
}

// available is the table as ACP lists it.
func (t commandTable) available() []sdk.AvailableCommand {
	var list []sdk.AvailableCommand
	for _, c := range t.list {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		list = append(list, ac)
	}
	return list
}

// announceDelay is how long announce waits before telling a new session's
// client its commands: the update must follow the session/new answer,
// which is written once the handler returns, as clients drop updates for
// a session whose id they do not know yet (Gemini CLI waits a tick too).
const announceDelay = 50 * time.Millisecond

// announce tells the client the session's commands, right after the
// answer that made the session known (session/new, session/load), and
// which custom command files were skipped, and why; and again once the
// MCP servers have started, if their prompts changed the list.
func (sess *session) announce() {
	s := sess.srv
	go func() {
		select {
		case <-time.After(announceDelay):
		case <-s.life.Done():
			return
		}
		if live, err := s.lookup(sdk.SessionId(sess.id)); err != nil || live != sess {
			return // closed, or loaded again, meanwhile
		}
		t := sess.commandTable(s.life)
		first := t.available()
		sess.update(s.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: first}})
		var skipped strings.Builder
		for _, err := range t.user.Errs {
			sess.log.Warn("custom command skipped", zap.Error(err))
			fmt.Fprintf(&skipped, "- %v\n", err)
		}
		if skipped.Len() > 0 {
			sess.update(s.life, sdk.UpdateAgentMessageText("Some custom commands could not be loaded:\n"+skipped.String()))
		}
		if len(sess.built.Tools.MCPServers()) == 0 || sess.built.Tools.WaitForServers(s.life) != nil {
			return
		}
		if live, err := s.lookup(sdk.SessionId(sess.id)); err != nil || live != sess {
			return
		}
		if now := sess.commandTable(s.life).available(); !reflect.DeepEqual(now, first) {
			sess.update(s.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: now}})
		}
	}()
}

// runCommand runs a slash command; done is false for a prompt that is not
// one (which then goes to the model).
func (sess *session) runCommand(ctx context.Context, in agent.Input) (done bool, res sdk.PromptResponse, err error) {
	inv, ok := commands.Parse(in.Text)
	if !ok || inv.Name == "" {
		return false, sdk.PromptResponse{}, nil
	}
	t := sess.commandTable(ctx)
	user := t.user.Has(inv.Name)
	b, isBuiltin := t.builtin[inv.Name]
	if !user && !isBuiltin {
		return false, sdk.PromptResponse{}, nil
	}
	sess.tail = ""
	sess.log.Info("slash command", zap.String("command", inv.Name))
	if user {
		res, err = sess.userCommand(ctx, t.user, inv, in)
	} else {
		res, err = sess.builtinCommand(ctx, b, t.list, inv.Args)
	}
	if err == nil && ctx.Err() != nil {
		res = sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}
	}
	return true, res, err
}

// userCommand sends the model the prompt one of the user's commands
// expands to (a custom command's, once the user has allowed each !{…}
// command it runs; an MCP prompt's); the prompt's attachments follow.
func (sess *session) userCommand(ctx context.Context, u commands.UserCommands, inv commands.Invocation, in agent.Input) (sdk.PromptResponse, error) {
	exp, err := u.Expand(ctx, inv, sess.commandShell(), commands.WorkspaceFiles{WS: sess.ws})
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sess.done(ctx, fmt.Sprintf("%s was not run: %v.", upperFirst(u.Source(inv.Name)), err))
	}
	for _, note := range exp.Notes {
		sess.say(ctx, note)
	}
	return sess.runTurn(ctx, agent.Input{Command: inv.Raw, Parts: append(exp.Parts, in.Parts...), Editor: in.Editor})
}

// upperFirst starts s with a capital.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// commandShell decides a custom command's !{…} commands as the model's
// shell calls are decided, through the session's approval door (which
// asks through session/request_permission, offering Always allow, unless
// settings or an earlier answer allow the command), and runs them on this
// machine, in the session's cwd.
func (sess *session) commandShell() commands.Shell {
	return sess.built.CommandShell(sess.agent, sess.cwd)
}

// done says text and ends the prompt.
func (sess *session) done(ctx context.Context, text string) (sdk.PromptResponse, error) {
	sess.message(ctx, text)
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// builtinCommand runs one of the built-ins: its answer, or the error
// naming its usage, is the agent's message; a prompt it asks for goes
// to the model.
func (sess *session) builtinCommand(ctx context.Context, b builtin.Builtin, list []commands.Command, args string) (sdk.PromptResponse, error) {
	reply, err := b.Run(ctx, builtin.Env{
		Session:  sess.agent,
		Built:    sess.built,
		Root:     sess.cwd,
		Version:  sess.srv.opts.Version,
		Commands: list,
	}, args)
	switch {
	case ctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case err != nil:
		return sess.done(ctx, sentence(err.Error()))
	case reply.Input != nil:
		return sess.runTurn(ctx, *reply.Input)
	}
	return sess.done(ctx, reply.Text)
}

// sentence is an error's text as a sentence of the message.
func sentence(s string) string {
	s = upperFirst(s)
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
