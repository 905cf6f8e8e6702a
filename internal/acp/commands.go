package acp

// Slash commands are the shared conversation layer's (conversation.Run
// dispatches them, conversation.Commands lists them, the same in every
// front end); here they are only told to the client: the list as
// available_commands_update, when the session starts, again once its
// MCP servers have started and after /commands reload (prompt.go), and
// the command files skipped, as a message. A built-in is listed by its
// name, as Gemini CLI 0.61's ACP agent lists its commands; its other
// names run it all the same.

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
)

// available is the commands as ACP lists them.
func available(cmds []commands.Command) []sdk.AvailableCommand {
	var list []sdk.AvailableCommand
	for _, c := range cmds {
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
		cmds, user := conversation.Commands(s.life, sess.setup())
		first := available(cmds)
		sess.update(s.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: first}})
		var skipped strings.Builder
		for _, err := range user.Errs {
			sess.log.Warn("custom command skipped", zap.Error(err))
			fmt.Fprintf(&skipped, "- %v\n", err)
		}
		sess.sendPendingNotices()
		if skipped.Len() > 0 && !sess.notice("warning", "Some custom commands could not be loaded", skipped.String()) {
			sess.update(s.life, sdk.UpdateAgentMessageText("Some custom commands could not be loaded:\n"+skipped.String()))
		}
		if notes := sess.takeNotes(); len(notes) > 0 {
			sess.update(s.life, sdk.UpdateAgentMessageText("Note:\n- "+strings.Join(notes, "\n- ")+"\n"))
		}
		if !sess.setup().ServersStarted(s.life) {
			return
		}
		if live, err := s.lookup(sdk.SessionId(sess.id)); err != nil || live != sess {
			return
		}
		cmds, _ = conversation.Commands(s.life, sess.setup())
		if now := available(cmds); !reflect.DeepEqual(now, first) {
			sess.update(s.life, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: now}})
		}
	}()
}
