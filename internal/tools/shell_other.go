//go:build !unix

package tools

import "os"

func processEnd(state *os.ProcessState) (code *int, signal string) {
	c := state.ExitCode()
	return &c, ""
}

func exitStatus(state *os.ProcessState) (exitCode, signal string) {
	return exitText(processEnd(state))
}
