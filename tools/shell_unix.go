//go:build unix

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// startInGroup makes cmd the leader of a new process group.
func startInGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process in the group pgid.
func killGroup(pgid int) error {
	return syscall.Kill(-pgid, syscall.SIGKILL)
}

// groupMembers lists the processes still in group pgid after its leader
// exited: the command's background processes. Where /proc is missing it
// reports only that some remain.
func groupMembers(pgid int) []string {
	if syscall.Kill(-pgid, 0) != nil {
		return nil
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	if stats == nil {
		return []string{"(unknown)"}
	}
	var pids []string
	for _, stat := range stats {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 3 || fields[2] != strconv.Itoa(pgid) || fields[0] == "Z" {
			continue
		}
		pids = append(pids, filepath.Base(filepath.Dir(stat)))
	}
	return pids
}

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
