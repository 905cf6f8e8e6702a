// Package heldtest runs a test's own binary as a second process that
// holds something (a held record, a window on the sandboxes' trail)
// until it is killed, for tests of what outlives, or does not outlive,
// the process that made it.
package heldtest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Child is the child's side, called first in the test named to Start:
// when env is set in the process's environment, it calls hold with its
// value, prints the line hold returns, then waits to be killed (or for
// its standard input to close) without returning. When env is not set
// it returns at once.
func Child(env string, hold func(value string) (string, error)) {
	value := os.Getenv(env)
	if value == "" {
		return
	}
	line, err := hold(value)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(line)
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// Start runs the test called test, in this binary, as a child with
// env=value set, and returns the line its Child printed (trimmed) and a
// kill that kills it and waits for its end. The child is killed at the
// test's end if kill was not called.
func Start(t *testing.T, test, env, value string) (line string, kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env+"="+value)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	kill = func() {
		if killed {
			return
		}
		killed = true
		if err := cmd.Process.Kill(); err != nil {
			t.Errorf("killing %s: %v", test, err)
		}
		cmd.Wait()
		stdin.Close()
	}
	t.Cleanup(kill)
	line, err = bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child %s printed nothing: %v", test, err)
	}
	return strings.TrimSpace(line), kill
}
