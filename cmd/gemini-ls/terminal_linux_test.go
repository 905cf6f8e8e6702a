package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// pty opens a pseudo-terminal and returns its terminal end, as a shell
// gives a command it runs.
func pty(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	term, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the terminal end: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return term
}

func TestBareOnATerminalSaysWhatItIs(t *testing.T) {
	var out, errOut strings.Builder
	code := run(t.Context(), nil, pty(t), &out, &errOut)
	if code != 0 || out.String() != "" || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), `gemini-ls run -p "..."`) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and one line saying how to run a prompt", code, out.String(), errOut.String())
	}
	// Not a terminal (an editor's pipe, /dev/null): it serves, and ends
	// with its input.
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	if isTerminal(devNull) {
		t.Error("/dev/null is taken for a terminal")
	}
}
