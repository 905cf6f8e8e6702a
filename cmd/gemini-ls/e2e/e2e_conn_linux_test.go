package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The editor going away during a shell command ends gemini-ls and the
// command's whole process group within 2 s, with status 1 (no shutdown),
// the prompt cancelled and its session saved.
func TestEditorGoneDuringShellCommand(t *testing.T) {
	t.Run("stdin closed", func(t *testing.T) {
		marker, command := sleepCommand()
		h := start(t, setup{profile: lsptest.Plugin(), opts: map[string]any{"approvalMode": "yolo"}, env: trustTheWorkspace()},
			call("run_shell_command", map[string]any{"command": command}))
		h.asyncPrompt(map[string]any{"prompt": "run it"})
		pgid := commandGroup(t, h.ctx, marker, h.proc.Cmd.Process.Pid)
		closeStdin(t, h)
		h.wantExit(1, 2*time.Second)
		wantGroupGone(t, pgid)
		wantSavedCancelled(t, h.proc.Cmd.Env)
	})
	t.Run("stdout closed, stdin open", func(t *testing.T) {
		// The editor stopped reading and keeps stdin open: the first
		// write that fails (EPIPE) ends gemini-ls as the end of its input
		// does, and does not kill it (SIGPIPE) first.
		marker, command := sleepCommand()
		h := start(t, setup{profile: lsptest.Plugin(), opts: map[string]any{"approvalMode": "yolo"}, env: trustTheWorkspace(), keepStdin: true},
			call("run_shell_command", map[string]any{"command": command}))
		h.asyncPrompt(map[string]any{"prompt": "run it"})
		pgid := commandGroup(t, h.ctx, marker, h.proc.Cmd.Process.Pid)
		if err := h.proc.CloseStdout(); err != nil {
			t.Fatal(err)
		}
		// A request, whose answer is the write that fails.
		body := `{"jsonrpc":"2.0","id":"after","method":"gemini/nothing","params":{}}`
		if _, err := fmt.Fprintf(h.proc, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatal(err)
		}
		h.wantExit(1, 10*time.Second)
		wantGroupGone(t, pgid)
		wantSavedCancelled(t, h.proc.Cmd.Env)
	})
	t.Run("stdout closed first", func(t *testing.T) {
		// The editor died, and gemini-ls writes to it before it reads the
		// end of its input: the write must fail (EPIPE), not kill
		// gemini-ls (SIGPIPE) before it killed the command. An editor of
		// raw frames: a jsonrpc2 client would close stdin itself as soon
		// as its reads fail.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		marker, command := sleepCommand()
		model := geminitest.NewTestServer(t, call("run_shell_command", map[string]any{"command": command}))
		log := filepath.Join(t.TempDir(), "gemini-ls.log")
		cmd := exec.Command(binary, "serve", "--log-file", log, "--log-level", "debug")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(),
			"GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_API_KEY=test-key", "GEMINI_CLI_TRUST_WORKSPACE=true", pinnedModel}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		send := func(body string) {
			t.Helper()
			if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
				t.Fatal(err)
			}
		}
		root := string(uri.File(t.TempDir()))
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"` + root + `","capabilities":{},"initializationOptions":{"approvalMode":"yolo"}}}`)
		send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		send(`{"jsonrpc":"2.0","id":2,"method":"gemini/prompt","params":{"prompt":"run it"}}`)
		pgid := commandGroup(t, ctx, marker, cmd.Process.Pid)

		if err := stdout.Close(); err != nil {
			t.Fatal(err)
		}
		// A gemini/cancel without its sessionId is a warning, mirrored to
		// the editor: a write to the closed stdout. The notification after
		// it is logged once that write is done.
		// The server may have ended by the time a write reaches it: a
		// write failing then (EPIPE) is the server gone, which the wait
		// below sees.
		for _, body := range []string{`{"jsonrpc":"2.0","method":"gemini/cancel","params":{}}`, `{"jsonrpc":"2.0","method":"gemini/afterTheWrite","params":{}}`} {
			if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
				break
			}
		}
		for !strings.Contains(readFile(log), "gemini/afterTheWrite") {
			select {
			case <-exited:
			case <-ctx.Done():
				t.Fatal("the server neither logged the notification after the write nor exited")
			case <-time.After(10 * time.Millisecond):
				continue
			}
			break
		}
		// (Closed already if the server exited: Wait closes it.)
		_ = stdin.Close()
		select {
		case <-exited:
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit status %d (%v), want 1", code, cmd.ProcessState)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("gemini-ls still runs 2s after the editor went away")
		}
		wantGroupGone(t, pgid)
	})
}

// wantSavedCancelled checks that the one session under env's HOME was
// saved with the shell command's call cancelled and the prompt ended as
// cancelled.
func wantSavedCancelled(t *testing.T, env []string) {
	t.Helper()
	saved := savedSession(t, env)
	for _, want := range []string{"Command was cancelled before it could complete.", `"stopReason":"cancelled"`} {
		if !strings.Contains(saved, want) {
			t.Errorf("the saved session lacks %s:\n%s", want, saved)
		}
	}
}

// savedSession is the one session file under env's HOME.
func savedSession(t *testing.T, env []string) string {
	t.Helper()
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %q, want one", files)
	}
	return readFile(files[0])
}

// sleepCommand is a shell command that starts a child and waits, marked
// with a duration no other process runs with.
func sleepCommand() (marker, command string) {
	marker = fmt.Sprintf("600.%d", time.Now().UnixNano())
	return marker, fmt.Sprintf("sleep %s & sleep %s; wait", marker, marker)
}

// commandGroup waits for sleepCommand's two sleeps and returns their
// process group, which must be neither the test's nor the server's. The
// group is killed when the test ends, whatever happened.
func commandGroup(t *testing.T, ctx context.Context, marker string, server int) int {
	t.Helper()
	pids := waitProcesses(t, ctx, "sleep", marker, 2)
	pgid := processGroup(t, pids[0])
	if pgid == processGroup(t, os.Getpid()) || pgid == processGroup(t, server) {
		t.Fatalf("the command runs in group %d, not a group of its own", pgid)
	}
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	return pgid
}

// wantGroupGone checks that no process of group pgid is alive. SIGKILL is
// sent before gemini-ls exits; the kernel gets a moment to finish them off.
func wantGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if live := waitGroupGone(pgid, time.Second); len(live) > 0 {
		t.Errorf("processes %v of the command's group %d are still running", live, pgid)
	}
}

// waitProcesses waits for n live processes running name with the single
// argument arg, and returns their pids.
func waitProcesses(t *testing.T, ctx context.Context, name, arg string, n int) []int {
	t.Helper()
	want := name + "\x00" + arg + "\x00"
	for {
		var pids []int
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, f := range cmdlines {
			b, err := os.ReadFile(f)
			if err != nil || string(b) != want {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			if state, _, ok := procStat(pid); ok && state != "Z" {
				pids = append(pids, pid)
			}
		}
		if len(pids) >= n {
			return pids
		}
		select {
		case <-ctx.Done():
			t.Fatalf("found %d processes %q, want %d", len(pids), name+" "+arg, n)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// procStat reads a process's state and process group from /proc.
func procStat(pid int) (state string, pgid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 3 {
		return "", 0, false
	}
	pgid, err = strconv.Atoi(fields[2])
	return fields[0], pgid, err == nil
}

func processGroup(t *testing.T, pid int) int {
	t.Helper()
	_, pgid, ok := procStat(pid)
	if !ok {
		t.Fatalf("process %d is gone", pid)
	}
	return pgid
}

// waitGroupGone waits up to d for group pgid to have no live process, and
// returns those still alive.
func waitGroupGone(pgid int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		live := groupMembersAlive(pgid)
		if len(live) == 0 || time.Now().After(deadline) {
			return live
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupMembersAlive lists the processes of group pgid that are neither gone
// nor zombies (a killed process whose parent died waits to be reaped).
func groupMembersAlive(pgid int) []int {
	var live []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if state, g, ok := procStat(pid); ok && g == pgid && state != "Z" {
			live = append(live, pid)
		}
	}
	return live
}
