package conversation

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// RunLocally runs c on this machine, as run_shell_command does with no
// runner of a front end's (tools.LocalRunner): for a front end whose
// client's terminal cannot run it (it has none, or the session is
// sandboxed and the terminal is outside the sandbox).
func RunLocally(ctx context.Context, c dialog.ShellCommand) (dialog.ShellOutcome, error) {
	return tools.LocalRunner{}.Run(ctx, c)
}

// StartLocally starts c on this machine as a background command, as
// RunLocally runs one in the foreground.
func StartLocally(ctx context.Context, c dialog.ShellCommand) (dialog.BackgroundProcess, error) {
	return tools.LocalRunner{}.Start(ctx, c)
}
