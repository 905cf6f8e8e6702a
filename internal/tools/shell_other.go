//go:build !unix

package tools

import (
	"os"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
)

func processEnd(state *os.ProcessState) (code *int, signal string) {
	c := state.ExitCode()
	return &c, ""
}

func exitStatus(state *os.ProcessState) (exitCode, signal string) {
	return exitText(processEnd(state))
}

// bwrapEnd is exit's code: no persistent sandbox runs here (bubblewrap
// is Linux's), so no signal is to be told apart.
func bwrapEnd(exit sandbox.Exit, _ bool) (code *int, signal string) {
	return &exit.Code, exit.Signal
}
