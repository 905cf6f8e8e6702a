//go:build unix

package policy_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// Judging a line stays linear in its length (hostile input is bounded):
// a 256 KiB list of allowed commands is allowed, and 256 KiB of command
// substitutions nested in each other, whose parts would repeat the text
// they hold at every level (gigabytes, minutes), is not parsed (it nests
// deeper than the parser is let read: no rule speaks for it, as for a
// line that cannot be parsed), each in a fraction of a second of CPU
// (measured as CPU time: the machine may be loaded).
func TestHugeLinesAreJudgedInLinearTime(t *testing.T) {
	e := load(t, policy.TierUser, false, map[string]string{"auto-saved.toml": gitStatusRule})
	const size = 256 << 10
	list := strings.Repeat("git status && ", size/14) + "git status"
	n := size / 14
	nested := strings.Repeat("git status $(", n) + "git status" + strings.Repeat(")", n)
	for _, tc := range []struct {
		name, command string
		want          policy.Decision
		why           string
	}{
		{"a list", list, policy.Allow, ""},
		{"nested substitutions", nested, "", ""},
	} {
		start := cpuTime(t)
		v := e.Check(shell(tc.command))
		took := cpuTime(t) - start
		if v.Decision != tc.want || v.Why != tc.why {
			t.Errorf("%s: %q (why %q), want %q (why %q)", tc.name, v.Decision, v.Why, tc.want, tc.why)
		}
		// Tens of seconds, were it quadratic; a fraction of one, with
		// the race detector's cost, as it is.
		if took > 5*time.Second {
			t.Errorf("%s of %d bytes took %v of CPU", tc.name, len(tc.command), took)
		}
		t.Logf("%s of %d bytes: %v of CPU", tc.name, len(tc.command), took)
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
