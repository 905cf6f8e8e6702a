package spawn_test

import (
	"os"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
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
	cmd := spawn.Command(t.Context(), testHelper, comSpec, "/d", "/c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Kill(); err != nil {
		t.Errorf("Kill = %v", err)
	}
}
