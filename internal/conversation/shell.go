package conversation

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Shell mode: a prompt "!command" runs command for the user, as Gemini
// CLI 0.61's shell mode does, without asking the model; the model reads
// the command and what it printed with the next prompt. Unlike 0.61's
// terminal, where the user typed it at their own shell, here a prompt may
// come from any front end, so it is decided as a run_shell_command call of
// it is (policy, approval mode, the user's answer).

// maxShellModeHistory is how much of a command's result the model is
// sent, as in 0.61 (MAX_OUTPUT_LENGTH, in JavaScript characters).
const maxShellModeHistory = 10000

// shellPrompt is the command a prompt "!command" runs; false when text is
// not one ("!" alone goes to the model as typed, as 0.61 sends an empty
// shell command nowhere).
func shellPrompt(text string) (string, bool) {
	command, ok := strings.CutPrefix(strings.TrimSpace(text), "!")
	command = strings.TrimSpace(command)
	if !ok || command == "" {
		return "", false
	}
	return command, true
}

// shell runs command, of prompt in, for the user in sess's workspace,
// once the session's approval door allows it as it would a
// run_shell_command call, shows the user its result as the turn's text
// and records it in the conversation, in as one of its prompts.
// A command that was refused or could not run is a *CommandError.
func (t *Turn) shell(sess Session, in dialog.Input, command string, emit func(dialog.Event)) (dialog.PromptResult, error) {
	sh := commandShell(sess.Built, sess.Agent, sess.Port)
	if err := sh.Confirm(t.ctx, []string{command}); err != nil {
		return dialog.PromptResult{}, &CommandError{Command: "the shell command", Err: err}
	}
	r, err := sh.Run(t.ctx, command)
	if err != nil {
		return dialog.PromptResult{}, &CommandError{Command: "the shell command", Err: err}
	}
	result := shellModeResult(r)
	text := dialog.Fence("", result)
	// Recorded even when the turn was cancelled, as 0.61 records a
	// cancelled command: the model is told it ran.
	err = sess.Agent.RecordExchange(context.WithoutCancel(t.ctx), strings.TrimSpace(in.Text), shellModeHistory(command, result), text)
	switch {
	case IsUnknownSession(err):
		return dialog.PromptResult{}, err
	case err != nil:
		emit(dialog.NoticeEvent{Text: fmt.Sprintf("This session could not be saved, so it will not survive a restart: %v", err)})
	}
	emit(dialog.TextEvent{Text: text})
	return dialog.PromptResult{StopReason: dialog.StopEndTurn, Text: text}, nil
}

// shellModeResult is what a command ended as, in 0.61's shell mode words:
// how it ended when not well, then its output.
func shellModeResult(r commands.ShellResult) string {
	out := strings.TrimSpace(r.Output)
	if out == "" {
		out = "(Command produced no output)"
	}
	var how string
	switch {
	case r.Aborted:
		how = "Command was cancelled."
	case r.Signal != "":
		how = fmt.Sprintf("Command terminated by signal: %s.", r.Signal)
	case r.ExitCode != 0:
		how = fmt.Sprintf("Command exited with code %d.", r.ExitCode)
	}
	if how == "" {
		return out
	}
	return how + "\n" + out
}

// shellModeHistory is what 0.61's shell mode adds to the conversation
// for a command and its result (addShellCommandToGeminiHistory): the
// user's turn, the result cut to maxShellModeHistory, backslashes and
// backticks escaped so neither closes its fence.
func shellModeHistory(command, result string) *genai.Content {
	if cut, ok := cutUTF16(result, maxShellModeHistory); ok {
		result = cut + "\n... (truncated)"
	}
	escape := strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace
	text := "I ran the following shell command:\n```sh\n" + escape(command) + "\n```\n\n" +
		"This produced the following result:\n```\n" + escape(result) + "\n```"
	return genai.NewContentFromText(text, genai.RoleUser)
}

// cutUTF16 is s's first n UTF-16 code units (JavaScript's length), never
// splitting a character, and whether anything was cut.
func cutUTF16(s string, n int) (string, bool) {
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n {
			return s[:i], true
		}
		units += w
	}
	return s, false
}
