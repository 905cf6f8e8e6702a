//go:build unix

// Package umasktest runs a test's file-creating code under a chosen
// umask. The umask belongs to the process, and setting it in a test would
// change what every parallel test creates, so the code runs in a child:
// the test binary run again, whose TestMain hands it to the case named.
package umasktest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

const (
	caseEnv = "GEMINI_LS_UMASK_CASE"
	maskEnv = "GEMINI_LS_UMASK"
)

// Case creates files in dir, under the umask mask, and says what is wrong
// with their modes, if anything.
type Case func(dir string, mask fs.FileMode) error

// Main starts TestMain: in a child Run started, it sets the umask, runs
// the case and exits with its outcome; elsewhere it returns at once.
func Main(cases map[string]Case) {
	name := os.Getenv(caseEnv)
	if name == "" {
		return
	}
	os.Exit(runCase(cases[name], name))
}

func runCase(c Case, name string) int {
	if c == nil {
		fmt.Fprintf(os.Stderr, "no umask case %q\n", name)
		return 2
	}
	mask, err := strconv.ParseUint(os.Getenv(maskEnv), 8, 32)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", maskEnv, err)
		return 2
	}
	syscall.Umask(int(mask))
	dir, err := os.MkdirTemp("", "umask")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	if err := c(dir, fs.FileMode(mask)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Run runs the case name of this test binary's TestMain in a child under
// umask mask, and fails t with what the child said when the case fails.
func Run(t *testing.T, name string, mask fs.FileMode) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), caseEnv+"="+name, maskEnv+"="+strconv.FormatUint(uint64(mask), 8))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s under umask %03o: %v\n%s", name, mask, err, out)
	}
}

// WantMode says how path's permissions differ from want, if they do.
func WantMode(path string, want fs.FileMode) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if got := info.Mode().Perm(); got != want {
		return fmt.Errorf("%s: mode %04o, want %04o", path, got, want)
	}
	return nil
}
