// Package sandboxtest holds what tests of the sandbox, and every other
// test that runs a program from PATH (bubblewrap, git, bash), share: such
// a test says so by its name, skips where the program is missing and fails
// under CI, which installs it, so it is never silently green.
package sandboxtest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// NeedBubblewrap stops t unless bwrap is on PATH and may make the
// sandbox's namespaces here.
func NeedBubblewrap(t testing.TB) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "true").CombinedOutput()
	if err != nil {
		need(t, fmt.Errorf("the test runs bubblewrap (bwrap), which cannot make a sandbox here (apt-get install bubblewrap): %w %s", err, out))
	}
}

// NeedGit stops t unless git is on PATH.
func NeedGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		need(t, fmt.Errorf("the test runs git, which is not on PATH: %w", err))
	}
}

// NeedBash stops t unless bash is on PATH.
func NeedBash(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		need(t, fmt.Errorf("the test runs bash, which is not on PATH: %w", err))
	}
}

func need(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(err)
	}
	t.Skip(err)
}
