// Package locktest checks that a writer of a file shared with Gemini CLI
// honours its lock (internal/sharedlock) as Gemini CLI's own writer
// would find it: a fresh lock directory is waited for, and one kept fresh
// for ever makes the write give up, with the file unchanged; and writers
// run at once as processes (Processes, Writer) lose none of their writes.
package locktest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Waits runs write while file's lock directory, <file>.lock, exists and
// is fresh, as Gemini CLI's is while it writes: write must not return, nor
// change file, for a second; once the directory is removed it must
// return nil, with no lock left behind. The caller then checks what
// write wrote.
func Waits(t testing.TB, file string, write func(context.Context) error) {
	t.Helper()
	before, beforeErr := os.ReadFile(file)
	if err := os.Mkdir(file+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- write(t.Context()) }()
	select {
	case err := <-done:
		t.Fatalf("the write returned (%v) while %s.lock was held", err, file)
	case <-time.After(time.Second):
	}
	if now, err := os.ReadFile(file); string(now) != string(before) || (err == nil) != (beforeErr == nil) {
		t.Fatalf("%s was written while its lock was held:\n%s", file, now)
	}
	if err := os.Remove(file + ".lock"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the write, once the lock was removed: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the write did not end within a minute of the lock's removal")
	}
	if _, err := os.Stat(file + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write left its lock behind: %v", err)
	}
}

// Refused runs write while file's lock directory is held and kept fresh
// by another (a live holder, which never releases it), its context
// ending after a second: write must fail with an error naming file and
// the lock directory and saying nothing was changed, and leave file as
// it was.
func Refused(t testing.TB, file string, write func(context.Context) error) {
	t.Helper()
	before, beforeErr := os.ReadFile(file)
	if err := os.Mkdir(file+".lock", 0o755); err != nil {
		t.Fatal(err)
	}
	holding, stop := context.WithCancel(t.Context())
	defer stop()
	go func() { // the holder's refresh, sooner than proper-lockfile's
		for holding.Err() == nil {
			now := time.Now()
			_ = os.Chtimes(file+".lock", now, now)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err := write(ctx)
	if err == nil {
		t.Fatalf("%s was written under another's lock", file)
	}
	for _, want := range []string{file, file + ".lock", "nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if now, err := os.ReadFile(file); string(now) != string(before) || (err == nil) != (beforeErr == nil) {
		t.Errorf("%s was changed:\n%s", file, now)
	}
}

// Processes runs n copies of the test binary as writers of one shared
// file, all started before any is let go so that their writes overlap
// as much as they can: the i-th with env(i) added to its environment,
// which names what it is to write and makes the package's TestMain hand
// it to Writer. It fails the test for every copy that fails, with what it
// said. Processes, unlike goroutines, share no memory: only the file's
// lock keeps their writes apart, as it keeps Gemini CLI's and gemini-ls's.
func Processes(t testing.TB, n int, env func(i int) []string) {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	outs := make([]*strings.Builder, n)
	var gates []io.Closer
	defer func() { // on a failed start, the others are let go too
		for _, g := range gates {
			g.Close()
		}
	}()
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env(i)...)
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i], gates = cmd, append(gates, gate)
	}
	for _, g := range gates {
		g.Close()
	}
	gates = nil
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v: %s", i, err, outs[i])
		}
	}
}

// Writer makes this process one of Processes' writers when the variable
// name is set in its environment: it waits to be let go, calls write, and
// exits, with 1 when write fails. A package's TestMain calls it first;
// without the variable it returns at once.
func Writer(name string, write func(value string) error) {
	value := os.Getenv(name)
	if value == "" {
		return
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // let go when Processes closes it
	if err := write(value); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
