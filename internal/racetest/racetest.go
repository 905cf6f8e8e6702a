//go:build linux

// Package racetest races a test's file operations against a command
// swapping a directory of the workspace with a symbolic link leading out
// of it (renameat2's RENAME_EXCHANGE, in a loop), as a sandboxed command
// may, for as long as the test says; and says how many rounds a race
// runs: a bounded count for every test run, GEMINI_LS_STRESS's for a
// long one (make stress).
package racetest

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Count is how many rounds a race runs: n, or GEMINI_LS_STRESS's count
// when it is set.
func Count(t testing.TB, n int) int {
	t.Helper()
	if s := os.Getenv("GEMINI_LS_STRESS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			t.Fatalf("GEMINI_LS_STRESS=%q: want a positive count of calls", s)
		}
	}
	return n
}

// Swap exchanges a and b (a directory and a symbolic link) over and
// over until the stop it returns is called, which waits for the loop
// to end, leaves a and b as they were and returns how many swaps it
// made.
func Swap(t testing.TB, a, b string) (stop func() int64) {
	t.Helper()
	done := make(chan struct{})
	var swaps atomic.Int64
	var loop sync.WaitGroup
	loop.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps.Add(1)
		}
	})
	return func() int64 {
		close(done)
		loop.Wait()
		if swaps.Load()%2 == 1 {
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Fatalf("renameat2: %v", err)
			}
		}
		return swaps.Load()
	}
}
