//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the server in a process group of its own, so that killGroup
// reaches its children (npx starts node, a shell script starts anything).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process left in the group pid leads. A group
// whose processes are all gone is no error.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// descendants are none to hold: killGroup reaches what the server
// started.
type descendants struct{}

func holdDescendants(*exec.Cmd) descendants { return descendants{} }

func (descendants) kill() {}
