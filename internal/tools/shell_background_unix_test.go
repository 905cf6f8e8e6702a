//go:build unix

package tools

import (
	"regexp"
	"syscall"
	"testing"
	"time"
)

// A command that leaves a process running in bash's background (&) is
// told its pid.
func TestShellReportsBackgroundProcesses(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	done := make(chan Result)
	go func() { done <- runShell(t, tw, ShellOptions{}, map[string]any{"command": "sleep 30 & echo $!"}) }()
	var res Result
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a command leaving a background process did not return")
	}
	head, pgid := shellOutput(t, res)
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	m := regexp.MustCompile(`^Output: (\d+)\nBackground PIDs: (\d+)\n$`).FindStringSubmatch(head)
	if m == nil || m[1] != m[2] {
		t.Errorf("output %q", res.Output)
	}
}
