package commands

import (
	"context"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// maxShellOutput is how much of a !{…} command's output is kept: the end.
const maxShellOutput = 1 << 20

// ToolShell confirms and runs !{…} commands as run_shell_command's are
// (Gemini CLI checks them against the same policy): refused when that
// tool is not enabled, else each decided by Allow, the session's approval
// door (agent.Session.AllowShell); run by Runner in Dir, output and
// errors together.
type ToolShell struct {
	// Enabled: run_shell_command is among the model's tools.
	Enabled bool
	// Allow decides one command as a run_shell_command call of it would
	// be: true to run it, false when the user said no, else an error
	// saying why nobody could say yes.
	Allow  func(ctx context.Context, command string) (bool, error)
	Runner dialog.CommandRunner // nil for tools.LocalRunner
	Dir    string
	// Door starts them: the session's, in its sandbox, as
	// run_shell_command's.
	Door *spawn.Door
	// Redaction keeps secrets out of the commands' environment.
	Redaction envredact.Policy
	// Shell runs the commands, as it runs run_shell_command's; the zero
	// Shell is osshell.Local().
	Shell osshell.Shell
}

// Quote quotes arg for the commands' shell.
func (s ToolShell) Quote(arg string) string { return s.Shell.OrLocal().Quote(arg) }

func (s ToolShell) Confirm(ctx context.Context, commands []string) error {
	if !s.Enabled {
		return fmt.Errorf("%s is not enabled (see tools.core and tools.exclude in settings), so its shell commands cannot run", tools.ShellName)
	}
	for _, c := range commands {
		if s.Allow == nil {
			return fmt.Errorf("nobody can be asked whether to run %q", c)
		}
		allowed, err := s.Allow(ctx, c)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return err
		case !allowed:
			return fmt.Errorf("%q: %w", c, ErrDeclined)
		}
	}
	return nil
}

func (s ToolShell) Run(ctx context.Context, command string) (ShellResult, error) {
	runner := s.Runner
	if runner == nil {
		runner = tools.LocalRunner{}
	}
	o, err := runner.Run(ctx, dialog.ShellCommand{Command: command, Shell: s.Shell, Dir: s.Dir, OutputLimit: maxShellOutput,
		Door: s.Door, Why: spawn.UserCommand{What: "the user's !command or a custom command's !{…}"}, Redaction: s.Redaction})
	if err != nil {
		return ShellResult{}, err
	}
	r := ShellResult{Output: o.Output, Signal: o.Signal, Aborted: ctx.Err() != nil}
	if o.ExitCode != nil {
		r.ExitCode = *o.ExitCode
	}
	return r, nil
}
