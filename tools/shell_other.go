//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

func startInGroup(cmd *exec.Cmd) {}

func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func groupMembers(pgid int) []string { return nil }

func processEnd(state *os.ProcessState) (code *int, signal string) {
	c := state.ExitCode()
	return &c, ""
}

func exitStatus(state *os.ProcessState) (exitCode, signal string) {
	return exitText(processEnd(state))
}
