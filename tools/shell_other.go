//go:build !unix

package tools

import (
	"os"
	"os/exec"
	"strconv"
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

func exitStatus(state *os.ProcessState) (exitCode, signal string) {
	return strconv.Itoa(state.ExitCode()), "(none)"
}
