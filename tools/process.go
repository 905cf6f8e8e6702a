package tools

import (
	"os"
	"os/exec"
)

// Helpers for tools in other packages that run commands (discovered tools),
// so every command gemini-ls starts ends the same way.

// KillGroupOnCancel makes cmd the leader of a new process group, killed as
// a whole when cmd's context ends, so its children die with it. Call it
// before cmd.Start; cmd must come from exec.CommandContext.
func KillGroupOnCancel(cmd *exec.Cmd) {
	startInGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// ExitStatus renders how a process ended as Gemini CLI reports it: an exit
// code and "(none)", or "(none)" and the signal that killed it (SIGKILL).
func ExitStatus(state *os.ProcessState) (exitCode, signal string) {
	return exitStatus(state)
}
