package dialog

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// The terminal is a port a front end implements for the tools:
// run_shell_command runs its commands through a CommandRunner, and its
// background ones through a BackgroundRunner, which ACP implements with
// the client's terminal. It lives here, below the tools, so a front end
// implements it without importing them; the tools' own runner, on this
// machine, is the default, and a front end reaches it through the host.

// CommandRunner runs run_shell_command's commands. The tools' runner,
// the default, runs them on this machine; a front end whose client has
// terminals of its own (ACP's terminal/create) runs them there, so that
// the user watches them. The tool tells the model the same things in the
// same words whichever runner ran the command; what a runner cannot know
// reads "(none)", as in Gemini CLI.
type CommandRunner interface {
	// Run runs c until it ends or ctx does (the call was cancelled, or the
	// tool's timeout fired): then it kills the command and still reports
	// what it output and how it ended. An error means the command could
	// not be run or followed to its end; the call fails with it.
	Run(ctx context.Context, c ShellCommand) (ShellOutcome, error)
}

// BackgroundRunner is a CommandRunner that can also start commands that
// outlive the call: the session's background processes. A runner that is
// not one has them run on this machine.
type BackgroundRunner interface {
	// Start starts c and returns it running; it ends when killed, or by
	// itself. ctx bounds the start alone.
	Start(ctx context.Context, c ShellCommand) (BackgroundProcess, error)
}

// ShellCommand is one command for a CommandRunner.
type ShellCommand struct {
	// Command is the command line Shell runs.
	Command string
	// Shell runs Command; the zero Shell is osshell.Local().
	Shell osshell.Shell
	// Dir is the absolute directory to run in.
	Dir string
	// Env is added to the environment the command would otherwise get
	// ("KEY=value"; later entries win).
	Env []string
	// OutputLimit is how many bytes of output to keep: the last ones.
	OutputLimit int
	// CallID is the tool call that runs the command, for a runner that
	// shows the command in it (ACP's terminal); "" when none.
	CallID string
	// Progress, when not nil, is called whenever the command prints,
	// so that one printing nothing for too long can be told.
	Progress func()
	// Redaction keeps secrets out of the environment the command gets
	// from gemini-ls (security.environmentVariableRedaction).
	Redaction envredact.Policy
	// Door starts the command on this machine, for Why: the session's,
	// with its sandbox (Sandbox). nil: none, and so no sandbox.
	Door *spawn.Door
	// Why says what asked for the command.
	Why spawn.UserCommand
}

// Sandbox is where the command must run: its door's sandbox, nil for
// none. A runner that cannot run it there (a client's terminal) runs it
// on this machine, through the door.
func (c ShellCommand) Sandbox() *sandbox.Sandbox { return sandbox.Of(c.Door) }

// ShellOutcome is how a command ended, as far as its runner knows.
type ShellOutcome struct {
	// Output is the tail of the command's combined stdout and stderr, at
	// most ShellCommand.OutputLimit bytes; it may start inside a
	// character when Dropped is not zero.
	Output string
	// Dropped is how many bytes of output came before Output and were
	// not kept; -1 when some were but how many is not known.
	Dropped int64
	// ExitCode is nil when the command was killed by a signal, or its
	// exit is not known.
	ExitCode *int
	// Signal is the name of the signal that killed the command
	// ("SIGKILL"); "" when none did.
	Signal string
	// Background are the PIDs of processes the command left running;
	// nil when none are, or the runner cannot tell.
	Background []string
	// PGID is the command's process group; 0 when not known.
	PGID int
	// Live says the user watched the output as it came (in the client's
	// terminal), so the call's display need not repeat it.
	Live bool
}

// BackgroundProcess is one background command, however it runs (on this
// machine, in the editor's terminal).
type BackgroundProcess interface {
	// PID identifies the process to the model.
	PID() int
	// Output is the output kept: its tail, and how many bytes came before
	// it and were not kept (-1: some, how many unknown). Reading it may
	// ask the editor (its terminal keeps it), hence ctx and the error.
	Output(ctx context.Context) (kept string, dropped int64, err error)
	// Done is closed once the process has ended.
	Done() <-chan struct{}
	// Exit is how it ended, once Done is closed: an exit code, or nil and
	// the signal that killed it.
	Exit() (code *int, signal string)
	// Kill ends the process and all it started; one that ended is no
	// error.
	Kill() error
}
