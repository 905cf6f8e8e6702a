package spawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Windows has no process groups to signal. A command is started in a
// new console process group (so a console interrupt aimed at gemini-ls
// does not reach it) and its tree is killed with taskkill /T, which
// follows parent process ids: simpler than a job object, at the price
// that a process whose parent already exited (what a command left
// running) is beyond reach.
func inNewGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// killGroup kills p and the processes it started; os.ErrProcessDone once p
// was waited for. taskkill runs while p's handle is held open, which
// keeps Windows from giving p's pid to another process, so taskkill
// cannot reach a stranger. Wait closes that handle, and the pid may
// then be another process's: nothing is killed.
func killGroup(p *os.Process) error {
	var treeErr error
	// WithHandle fails only once p was waited for: done, or released
	// (Wait releases p on Windows).
	if p.WithHandle(func(uintptr) {
		treeErr = Command(context.Background(), Helper{Name: "taskkill"}, "taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid)).Run()
	}) != nil {
		return os.ErrProcessDone
	}
	// taskkill may be missing or refused; p itself can always be ended.
	if err := p.Kill(); err != nil && treeErr != nil {
		// Waited for meanwhile: Go says EINVAL of a released process.
		if errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.EINVAL) {
			return os.ErrProcessDone
		}
		return fmt.Errorf("taskkill /T: %v; TerminateProcess: %w", treeErr, err)
	}
	return nil
}

// groupMembers is nil: Windows keeps no group to list.
func groupMembers(int) []string { return nil }
