package geminils

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// lanesCommand is scripts/lanes.sh running lanes in dir.
func lanesCommand(t *testing.T, dir string, lanes ...string) *exec.Cmd {
	t.Helper()
	platformtest.Tool(t, "bash")
	script, err := filepath.Abs("scripts/lanes.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", append([]string{script}, lanes...)...)
	cmd.Dir = dir
	return cmd
}

// scripts/lanes.sh, which make test-editors runs the editors' suites
// with, runs its lanes at once (lane 1 waits for a file lane 2 makes),
// prints lane 2's output whole after lane 1's, and fails when a lane
// fails, having let the other finish.
func TestLanesRunAtOnceAndFailWhenOneDoes(t *testing.T) {
	dir := t.TempDir()
	lanes := func(lane1, lane2 string) (string, error) {
		out, err := lanesCommand(t, dir, lane1, lane2).CombinedOutput()
		return string(out), err
	}

	// Each lane waits (10 s at most) for a file the other makes, lane 2
	// only once lane 1's is there: one after the other, in either order,
	// they would fail.
	waitFor := func(f string) string {
		return "for i in $(seq 100); do [ -e " + f + " ] && break; sleep 0.1; done; [ -e " + f + " ]"
	}
	out, err := lanes("touch one && "+waitFor("two")+" && echo one-saw-two",
		waitFor("one")+" && echo two-first && touch two && echo two-last")
	if err != nil {
		t.Fatalf("two lanes that pass: %v\n%s", err, out)
	}
	one, two := strings.Index(out, "\none-saw-two\n"), strings.Index(out, "\ntwo-first\ntwo-last\n")
	if one < 0 || two < one {
		t.Errorf("lane 2's output is not whole after lane 1's:\n%s", out)
	}

	out, err = lanes("exit 4", "sleep 0.5; echo two-ended")
	if err == nil || !strings.Contains(out, "two-ended") || !strings.Contains(out, "'exit 4': exit status 4") {
		t.Errorf("lane 1 failing: %v\n%s", err, out)
	}
	out, err = lanes("echo one", "echo two; exit 3")
	if err == nil || !strings.Contains(out, "'echo two; exit 3': exit status 3") {
		t.Errorf("lane 2 failing: %v\n%s", err, out)
	}
}
