package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestGlobListsTheNewestAndCountsTheRest: past its cap, glob lists the
// most recently modified files, newest first, and tells how many more
// matched (a search of a million files holds no more than it lists).
func TestGlobListsTheNewestAndCountsTheRest(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%5, i)] = ""
	}
	tw := newTestWorkspace(t, files)
	for i := range 50 {
		// f07 is the newest, then f14, f21, …: neither name nor
		// directory order.
		tw.touch(fmt.Sprintf("d%d/f%02d.txt", i%5, i), time.Duration((i*7)%50)*time.Minute)
	}
	call := build(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "**/*.txt"}).(*globCall)
	call.maxFiles = 10
	res := mustExecute(t, call)

	var want strings.Builder
	fmt.Fprintf(&want, "Found 50 file(s) matching \"**/*.txt\" within %s, sorted by modification time (newest first), paths relative to the workspace root; "+
		"the newest 10 are listed, 40 more are not: search a narrower path or pattern to see them:", tw.root)
	for age := range 10 {
		// The file touched (49-age) minutes after the base: i*7 ≡ 49-age (mod 50).
		for i := range 50 {
			if (i*7)%50 == 49-age {
				fmt.Fprintf(&want, "\nd%d/f%02d.txt", i%5, i)
			}
		}
	}
	wantOutput(t, res, want.String())
	if res.Display != "Found 50 matching file(s); the newest 10 listed." {
		t.Errorf("Display = %q", res.Display)
	}
}

// TestGlobUnderItsCapListsEverything: at its cap, nothing is said to be
// left out.
func TestGlobUnderItsCapListsEverything(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "", "b.txt": ""})
	tw.touch("a.txt", time.Minute)
	tw.touch("b.txt", 0)
	call := build(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "*.txt"}).(*globCall)
	call.maxFiles = 2
	wantOutput(t, mustExecute(t, call), fmt.Sprintf("Found 2 file(s) matching \"*.txt\" within %s, sorted by modification time (newest first), paths relative to the workspace root:\n%s\n%s",
		tw.root, "a.txt", "b.txt"))
}

// TestReferencesReadTheFirstFilesAndCountTheRest: past their file cap,
// the @paths of a prompt read the first files in path order and say how
// many more matched; empty files, which cost no text, are held to it too.
func TestReferencesReadTheFirstFilesAndCountTheRest(t *testing.T) {
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("d%d/f%02d.txt", i%5, i)] = ""
	}
	tw := newTestWorkspace(t, files)
	r := newReader(t, tw, "**/*.txt")
	r.maxFiles = 10
	res := readWith(t, r)

	var want strings.Builder
	for _, i := range []int{0, 5, 10, 15, 20, 25, 30, 35, 40, 45} { // d0/…, the first ten paths
		fmt.Fprintf(&want, "--- %s ---\n\n\n\n", tw.abs(fmt.Sprintf("d0/f%02d.txt", i)))
	}
	want.WriteString("Skipped 1 item(s):\n- 40 file(s) (Reason: not read: the output limit (2.0 MiB of text, 16.0 MiB of data, 10 files) was reached; read them in smaller groups)\n")
	want.WriteString("\n" + ReferenceContentEnd)
	wantOutput(t, res, want.String())
}

// TestReferencesCountAFileReachedTwiceOnce: a file named literally and
// by a glob, or lying below a root inside another root, is read and
// counted once.
func TestReferencesCountAFileReachedTwiceOnce(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{
		"sub/.gitignore": "*.log\n", "a.txt": "A", "sub/b.txt": "B", "sub/c.log": "C", "sub/d.bin": "D",
	})
	if _, _, err := tw.ws.AddRoot("sub"); err != nil {
		t.Fatal(err)
	}
	res := readRefs(t, tw, "a.txt", "**/*.txt", "**/*.log", "**/*.bin")
	wantOutput(t, res, fmt.Sprintf("--- %s ---\n\nA\n\n--- %s ---\n\nB\n\n"+
		"Skipped 2 item(s):\n- 1 file(s) (Reason: excluded by the exclude patterns or the default excludes)\n- 1 file(s) (Reason: ignored by project ignore files)\n"+
		"\n%s", tw.abs("a.txt"), tw.abs("sub/b.txt"), ReferenceContentEnd))
}

// TestSearchesCancelledMidWalkReturnAndLeaveNothingRunning: every search
// over a directory of 100,000 files (glob, grep_search with each engine,
// an @path that is a glob or a directory) cancelled in
// the middle returns the cancel, and no goroutine or process of it is left
// running. Hang guards only: nothing is timed. The cancel comes after a
// short delay, shorter each time the search ended before it.
func TestSearchesCancelledMidWalkReturnAndLeaveNothingRunning(t *testing.T) {
	tw, tree := bigWorkspace(t)
	tool := func(name string, args map[string]any) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := build(t, tw.tool(name, Options{}), args).Execute(ctx, CallInfo{})
			return err
		}
	}
	grepWith := func(engine grepEngine) func(context.Context) error {
		return func(ctx context.Context) error {
			call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"}).(*grepCall)
			call.engine = engine
			_, err := call.Execute(ctx, CallInfo{})
			return err
		}
	}
	searches := map[string]func(context.Context) error{
		"glob": tool(GlobName, map[string]any{"pattern": "**/*"}),
		"@path glob": func(ctx context.Context) error {
			_, _, err := ResolveReference(ctx, tw.ws, "f0")
			return err
		},
		"@path directory": func(ctx context.Context) error {
			_, err := ReadReferences(ctx, tw.ws, []string{"many/**"})
			return err
		},
	}
	for name, engine := range grepEngines(t, tree.Root) {
		searches["grep_search "+name] = grepWith(engine)
	}
	for name, search := range searches {
		t.Run(name, func(t *testing.T) {
			for _, delay := range []time.Duration{50 * time.Millisecond, 10 * time.Millisecond, time.Millisecond} {
				if cancelMidSearch(t, search, delay) {
					return
				}
			}
			t.Fatal("the search ended before every cancel")
		})
	}
}

// cancelMidSearch runs search, cancelling it after delay, and checks that
// it returns the cancel and leaves no goroutine behind; false when it
// ended before the cancel.
func cancelMidSearch(t *testing.T, search func(context.Context) error, delay time.Duration) bool {
	t.Helper()
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled atomic.Bool
	timer := time.AfterFunc(delay, func() {
		cancelled.Store(true)
		cancel()
	})
	done := make(chan error, 1)
	go func() { done <- search(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("cancelled, it did not return")
	}
	if timer.Stop() || err == nil && cancelled.Load() {
		waitGoroutines(t, before)
		return false
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after %s, it returned %v", delay, err)
	}
	waitGoroutines(t, before)
	return true
}

// waitGoroutines waits, within a hang guard, until no more goroutines run
// than want.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines still run, %d before:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGrepExternalEngineSearchesBatchesOfSmallFilesInProcess: a batch of
// small files, not only the last, is searched in-process, where starting
// rg for each thousand of a tree's small files cost more than reading them.
func TestGrepExternalEngineSearchesBatchesOfSmallFilesInProcess(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg is not installed (make test-go installs it)")
	}
	files := map[string]string{"big.txt": strings.Repeat("filler\n", smallSearch/7+1) + "x big\n"}
	for i := range 2*externalBatch + 500 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%3, i)] = ""
	}
	files["d1/f0001.txt"] = "one x\n"
	tw := newTestWorkspace(t, files)
	var runs atomic.Int32
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "x", "context": 0.0}).(*grepCall)
	call.engine = externalGrep{tool: runCountedTool{ripgrep{}, &runs}, dir: tw.root, inProcessBelow: smallSearch}
	wantOutput(t, mustExecute(t, call), fmt.Sprintf("Found 2 matches for pattern \"x\" in the workspace directory:\n---\nFile: big.txt\nL%d: x big\n---\nFile: d1/f0001.txt\nL1: one x\n---", smallSearch/7+2))
	// The batch holding big.txt, over smallSearch, is rg's; the other
	// two are searched in-process.
	if n := runs.Load(); n != 1 {
		t.Errorf("rg ran %d times, want once", n)
	}
}

// runCountedTool is rg, counting its runs (each has its output parsed once).
type runCountedTool struct {
	ripgrep
	runs *atomic.Int32
}

func (c runCountedTool) parse(out io.Reader, line func(path string, number int, text []byte)) error {
	c.runs.Add(1)
	return c.ripgrep.parse(out, line)
}
