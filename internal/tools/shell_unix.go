//go:build unix

package tools

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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
