package tools

import "os"

// A helper for tools in other packages that run commands (discovered
// tools), so that they report how a command ended as the shell tool does.

// ExitStatus renders how a process ended as Gemini CLI reports it: an exit
// code and "(none)", or "(none)" and the signal that killed it (SIGKILL).
func ExitStatus(state *os.ProcessState) (exitCode, signal string) {
	return exitStatus(state)
}
