//go:build unix

package tools

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
)

// processEnd is how the process ended: its exit code, or the name of
// the signal that killed it.
func processEnd(state *os.ProcessState) (code *int, signal string) {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, unix.SignalName(ws.Signal())
	}
	c := state.ExitCode()
	return &c, ""
}

// exitStatus renders how the process ended as Gemini CLI reports it: an
// exit code, or "(none)" and the signal that killed it.
func exitStatus(state *os.ProcessState) (exitCode, signal string) {
	return exitText(processEnd(state))
}

// bwrapEnd is how a bwrap of its own would have reported exit: bwrap
// exits with 128 plus the signal that killed its command, and is itself
// killed (SIGKILL) only when the command is cancelled.
func bwrapEnd(exit sandbox.Exit, cancelled bool) (code *int, signal string) {
	if exit.Signal == "" {
		return &exit.Code, ""
	}
	if cancelled {
		return nil, "SIGKILL"
	}
	c := 128 + int(unix.SignalNum(exit.Signal))
	return &c, ""
}
