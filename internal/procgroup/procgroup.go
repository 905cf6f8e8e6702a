// Package procgroup runs commands in process groups of their own, so that
// what a command starts (a pipeline, a child it backgrounds, a grandchild
// holding its output) can be ended with it. Every command gemini-ls runs
// for a tool, a hook or a search ends the same way through it.
package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Own makes cmd, once started, the leader of a new process group, and has
// the end of cmd's context kill that whole group, not cmd's process alone.
// Call it before cmd.Start; cmd must come from exec.CommandContext.
func Own(cmd *exec.Cmd) {
	inNewGroup(cmd)
	// An empty group is os.ErrProcessDone, which Cancel may return: the
	// command ended before its context did.
	cmd.Cancel = func() error { return kill(cmd.Process) }
}

// Kill kills every process left in the group of cmd, which Own set up:
// while cmd runs, cmd and all it started; once it has exited, what it left
// running, such as a background child still holding its output. A process
// that left the group (setsid) is beyond reach. A group with nothing left
// in it, or a cmd that never started, is no error.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := kill(cmd.Process); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing the process group of %s: %w", cmd.Path, err)
	}
	return nil
}

// Members lists the processes still in the group of cmd, which Own set up,
// after cmd exited: the background processes it left. Where /proc is
// missing it reports only that some remain; nil where groups are unknown.
func Members(cmd *exec.Cmd) []string {
	if cmd.Process == nil {
		return nil
	}
	return groupMembers(cmd.Process.Pid)
}
