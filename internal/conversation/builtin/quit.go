package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// quitHint is /quit's usage, as Gemini CLI 0.61's.
const quitHint = "[--delete]"

// errNoTerminal is /quit's answer: Gemini CLI 0.61's non-interactive mode
// refuses it too ("not supported in non-interactive mode"), and here
// there is no terminal to exit at all.
var errNoTerminal = errors.New("there is no terminal to exit here: close the chat in your editor to end the conversation (`gemini-ls run` ends after its prompt). " +
	"It is saved as you go, to resume later; `/quit --delete` deletes it")

// quit is Gemini CLI 0.61's /quit (and /exit) where a front end, not
// gemini-ls, owns the conversation's window: without --delete nothing is
// done and the user is told how to end it (an error, as 0.61's
// non-interactive mode answers). With --delete the conversation is
// deleted, as 0.61 deletes the session's recording on the way out: its
// history and its saved session go, and the chat, which the editor keeps
// open, starts afresh.
func quit(_ context.Context, env Env, args string) (Reply, error) {
	switch strings.TrimSpace(args) {
	case "":
		return Reply{}, errNoTerminal
	case "--delete":
	default:
		b, _ := Find("quit")
		return Reply{}, b.usage(fmt.Sprintf("unknown option %q", args))
	}
	saved, err := env.Session.Delete()
	if err != nil {
		return Reply{}, err
	}
	text := "The conversation was deleted: its history, and its saved session."
	if !saved {
		text = "The conversation was deleted: its history (nothing of it had been saved)."
	}
	return Reply{Text: text + " Close the chat to end it; a prompt sent here starts a new conversation, saved again."}, nil
}
