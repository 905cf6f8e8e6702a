//go:build unix

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// newHostileWorkspace is a workspace holding one of each thing that has
// broken the file tools: a symlink to a file outside the roots, a symlink
// to /dev/zero, a FIFO, a 2 GiB sparse file, a symlink loop and a file
// name with a newline, beside two ordinary files. extraRoots are further
// workspace roots ("/dev" puts /dev/zero inside them).
func newHostileWorkspace(t *testing.T, extraRoots ...string) *testWorkspace {
	t.Helper()
	tw := newTestWorkspace(t, map[string]string{"ok.txt": "needle\n", "new\nline.txt": "needle\n"})
	tw.touch("ok.txt", 0)
	tw.touch("new\nline.txt", time.Hour)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("needle SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"out.txt": filepath.Join(outside, "secret.txt"),
		"zero":    "/dev/zero",
		"loop":    "loop",
	} {
		if err := os.Symlink(target, tw.abs(link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(tw.abs("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tw.abs("sparse.bin"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(tw.abs("sparse.bin"), 2<<30); err != nil {
		t.Fatal(err)
	}
	if len(extraRoots) > 0 {
		ws, err := workspace.New(append([]string{tw.root}, extraRoots...), tw.docs)
		if err != nil {
			t.Fatal(err)
		}
		tw.ws = ws
	}
	return tw
}

// runBounded runs a call as run does, failing the test when it takes
// more than 10 s or allocates more than 64 MiB: nothing in the hostile
// workspace may be read whole or block.
func runBounded(t *testing.T, tool Tool, args map[string]any) Result {
	t.Helper()
	call := build(t, tool, args)
	return bounded(t, fmt.Sprintf("Execute(%v)", args), func() (Result, error) { return call.Execute(context.Background(), CallInfo{}) })
}

// bounded is what f returns, failing the test when f takes more than 10
// s or allocates more than 64 MiB.
func bounded(t *testing.T, what string, f func() (Result, error)) Result {
	t.Helper()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	go func() {
		res, err := f()
		done <- outcome{res, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running after 10 s", what)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("%s allocated %d MiB", what, n>>20)
	}
	if o.err != nil {
		t.Fatalf("%s: %v", what, o.err)
	}
	return o.res
}

func TestGrepSearchInAHostileWorkspace(t *testing.T) {
	tw := newHostileWorkspace(t)
	res := runBounded(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle"})
	wantOutput(t, res, `Found 2 matches for pattern "needle" in the workspace directory:
---
File: "new\nline.txt"
L1: needle
---
File: ok.txt
L1: needle
---

(skipped 2 symlinks leading outside the workspace, 1 special file (device, FIFO or socket), 1 broken symlink or unreadable entry, 1 file over 8.0 MiB)`)
	if want := "Found 2 matches. (skipped 2 symlinks leading outside the workspace, 1 special file (device, FIFO or socket), 1 broken symlink or unreadable entry, 1 file over 8.0 MiB)"; res.Display != want {
		t.Errorf("Display = %q, want %q", res.Display, want)
	}

	// Named on their own, each is refused with a reason, never read.
	tool := tw.tool(GrepSearchName, Options{})
	wantError(t, runBounded(t, tool, map[string]any{"pattern": "needle", "path": "fifo"}),
		"Cannot search "+tw.abs("fifo")+": reading "+tw.abs("fifo")+": it is a named pipe (FIFO), not a regular file")
	wantError(t, runBounded(t, tool, map[string]any{"pattern": "needle", "path": "sparse.bin"}),
		"Cannot search "+tw.abs("sparse.bin")+": reading "+tw.abs("sparse.bin")+": the file is 2.0 GiB, over the 8.0 MiB limit")
	for _, name := range []string{"out.txt", "zero"} {
		wantContains(t, buildError(t, tool, map[string]any{"pattern": "needle", "path": name}), "Path must be within one of the workspace directories")
	}
}

func TestGrepSearchSkipsDevicesInsideTheRoots(t *testing.T) {
	tw := newHostileWorkspace(t, "/dev")
	res := runBounded(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "needle", "path": "."})
	wantContains(t, res.Output, "(skipped 1 symlink leading outside the workspace, 2 special files (devices, FIFOs or sockets), 1 broken symlink or unreadable entry, 1 file over 8.0 MiB)")
}

func TestGlobInAHostileWorkspace(t *testing.T) {
	tw := newHostileWorkspace(t)
	res := runBounded(t, tw.tool(GlobName, Options{}), map[string]any{"pattern": "*.txt"})
	wantOutput(t, res, `Found 2 file(s) matching "*.txt" within `+tw.root+`, sorted by modification time (newest first), paths relative to the workspace root:
"new\nline.txt"
ok.txt

(skipped 2 symlinks leading outside the workspace, 1 special file (device, FIFO or socket), 1 broken symlink or unreadable entry)`)
}

func TestListDirectoryInAHostileWorkspace(t *testing.T) {
	tw := newHostileWorkspace(t)
	res := runBounded(t, tw.tool(ListDirectoryName, Options{}), map[string]any{"path": "."})
	wantOutput(t, res, "Directory listing for "+tw.root+":\n"+
		`"new\nline.txt" (7 bytes)`+"\n"+
		"ok.txt (7 bytes)\n"+
		"sparse.bin (2147483648 bytes)\n"+
		"\n(skipped 2 symlinks leading outside the workspace, 1 special file (device, FIFO or socket), 1 broken symlink or unreadable entry)")
}

func TestReadFileInAHostileWorkspace(t *testing.T) {
	tw := newHostileWorkspace(t, "/dev")
	tool := tw.tool(ReadFileName, Options{})
	wantError(t, runBounded(t, tool, map[string]any{"path": "sparse.bin"}),
		"File size exceeds the 20MB limit: "+tw.abs("sparse.bin")+" (2048.00MB)")
	wantError(t, runBounded(t, tool, map[string]any{"path": "fifo"}),
		"Cannot read "+tw.abs("fifo")+": reading "+tw.abs("fifo")+": it is a named pipe (FIFO), not a regular file")
	// zero resolves to /dev/zero, inside the /dev root.
	wantError(t, runBounded(t, tool, map[string]any{"path": "zero"}),
		"Cannot read /dev/zero: reading /dev/zero: it is a device, not a regular file")
	wantOutput(t, runBounded(t, tool, map[string]any{"path": "new\nline.txt"}), "needle\n")
	wantContains(t, buildError(t, tool, map[string]any{"path": "out.txt"}), "Path must be within one of the workspace directories")
	wantContains(t, buildError(t, tool, map[string]any{"path": "loop"}), `Cannot resolve path "loop"`)
}

func TestFileToolsStopWhenCancelled(t *testing.T) {
	tw := newHostileWorkspace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{GrepSearchName, map[string]any{"pattern": "needle"}},
		{GrepSearchName, map[string]any{"pattern": "needle", "path": "ok.txt"}},
		{GlobName, map[string]any{"pattern": "**"}},
		{ListDirectoryName, map[string]any{"path": "."}},
		{ReadFileName, map[string]any{"path": "ok.txt"}},
	} {
		res, err := build(t, tw.tool(tc.tool, Options{}), tc.args).Execute(ctx, CallInfo{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s %v with a cancelled context: %+v, %v", tc.tool, tc.args, res, err)
		}
	}
}
