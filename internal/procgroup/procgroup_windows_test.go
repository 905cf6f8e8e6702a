package procgroup_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/procgroup"
)

// Killing a command that was waited for is no error, and kills nothing:
// Wait closed its handle, so its pid may be another process's by now
// (Go says EINVAL of such a process, not os.ErrProcessDone; Kill said
// "taskkill /T: exit status 128; TerminateProcess: invalid argument"
// after running taskkill on that pid).
func TestKillOfAWaitedCommand(t *testing.T) {
	comSpec := os.Getenv("ComSpec")
	if comSpec == "" {
		comSpec = "cmd.exe"
	}
	cmd := exec.CommandContext(t.Context(), comSpec, "/d", "/c", "exit 0")
	procgroup.Own(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := procgroup.Kill(cmd); err != nil {
		t.Errorf("Kill = %v", err)
	}
}
