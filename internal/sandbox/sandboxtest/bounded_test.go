package sandboxtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A command that does not end within its time-out, its child holding
// its output open as conmon holds podman's, is killed and fails its
// test, which says which command did not end, in about the time-out
// and not the command's own minutes. The test that hangs is run as a
// child of this one, which reads its verdict.
func TestBoundedCommandFailsAStuckCommand(t *testing.T) {
	if os.Getenv("SANDBOXTEST_STUCK_CHILD") != "" {
		cmd := boundedCommand(t, 200*time.Millisecond, "sh", "-c", "sleep 30 & sleep 30")
		_, _ = cmd.CombinedOutput()
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip(err)
	}
	start := time.Now()
	child := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBoundedCommandFailsAStuckCommand$", "-test.v")
	child.Env = append(os.Environ(), "SANDBOXTEST_STUCK_CHILD=1")
	out, err := child.CombinedOutput()
	if took := time.Since(start); took > 25*time.Second {
		t.Errorf("the stuck command's test took %v, want about its time-out and waitDelay", took)
	}
	for _, want := range []string{"sh -c sleep 30 & sleep 30 did not end within 200ms; killed", "--- FAIL: TestBoundedCommandFailsAStuckCommand"} {
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("the stuck command's test (%v) lacks %q:\n%s", err, want, out)
		}
	}
}
