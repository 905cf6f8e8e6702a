package sandboxtest

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const (
	// CommandTimeout bounds each command a test readies or runs podman
	// with (boundedCommand): far longer than any takes on a loaded
	// machine (seconds), so that one only a stuck podman reaches.
	CommandTimeout = 3 * time.Minute
	// waitDelay is how long, once such a command is killed, its output
	// is waited for: conmon, podman's child, may keep it open.
	waitDelay = 10 * time.Second
)

// boundedCommand is name run with args under t, with a time-out: a
// command still running after timeout is killed and fails t, saying
// which and that it did not end, so that a podman that stops answering
// fails its test in minutes instead of hanging the package until its
// own time-out, which names whatever test was running.
func boundedCommand(t *testing.T, timeout time.Duration, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Errorf("%s %s did not end within %v; killed", name, strings.Join(args, " "), timeout)
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = waitDelay
	return cmd
}
