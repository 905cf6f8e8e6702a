package procgroup

import (
	"os/exec"
	"testing"
	"time"
)

// Killing a command that has ended but was not yet waited for is no
// error: /tasks kill of a task that just finished said "taskkill /T: exit
// status 128; TerminateProcess: invalid argument".
func TestKillOfAnEndedCommand(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), "cmd.exe", "/d", "/c", "exit 0")
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for !exited(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("cmd.exe /c exit 0 did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := Kill(cmd); err != nil {
		t.Errorf("Kill of an ended command: %v", err)
	}
}
