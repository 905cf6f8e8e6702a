package tools

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/tools/background"
)

// A background command in cmd.exe, as the Unix tests run one in bash: the
// model is told it runs in the background and its PID; its output is read
// back by that PID while it runs and once it ended, with how it ended;
// and killing it, as /tasks kill and the session's end do, ends it and
// what it started (taskkill /T), not cmd.exe alone.
func TestShellInCmdBackgroundCommand(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	opts := Options{Shell: cmdShell(t)}
	var reg background.Registry
	t.Cleanup(func() { _ = reg.Close() })
	start := func(command string) background.Entry {
		t.Helper()
		call := build(t, tw.tool(ShellName, opts), map[string]any{"command": command, "is_background": true, "delay_ms": 0})
		res, err := call.Execute(t.Context(), CallInfo{Background: &reg})
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(res.Display, "Background process started with PID "), "."))
		if err != nil {
			t.Fatalf("%s: %+v", command, res)
		}
		if want := fmt.Sprintf("Command is running in background. PID: %d. Initial output:\n", pid); !strings.HasPrefix(res.Output, want) {
			t.Errorf("%s: output %q, want it to start %q", command, res.Output, want)
		}
		e, ok := reg.Get(pid)
		if !ok || e.Command != command {
			t.Fatalf("%s: the session keeps %+v, not PID %d", command, reg.List(), pid)
		}
		return e
	}
	read := func(e background.Entry, args map[string]any) string {
		t.Helper()
		args["pid"] = e.Process.PID()
		res, err := build(t, tw.tool(ReadBackgroundName, opts), args).Execute(t.Context(), CallInfo{Background: &reg})
		if err != nil || res.Error != "" {
			t.Fatalf("%s: %+v, %v", ReadBackgroundName, res, err)
		}
		return res.Output
	}
	listed := func(e background.Entry) string {
		t.Helper()
		res, err := build(t, tw.tool(ListBackgroundName, opts), map[string]any{}).Execute(t.Context(), CallInfo{Background: &reg})
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(res.Output, "\n") {
			if strings.HasPrefix(line, fmt.Sprintf("- [PID %d] ", e.Process.PID())) {
				return line
			}
		}
		t.Fatalf("%s lists no PID %d: %q", ListBackgroundName, e.Process.PID(), res.Output)
		return ""
	}
	ended := func(e background.Entry, within time.Duration, why string) {
		t.Helper()
		select {
		case <-e.Process.Done():
		case <-time.After(within):
			t.Fatalf("%s: still running after %s: %s", e.Command, within, why)
		}
	}

	// One that ends by itself, after a second (ping's pause), with exit
	// code 3: its whole output, kept after its end, and its exit code.
	// cmd.exe's lines end in CRLF, kept as written.
	const ends = "echo started& ping -n 2 127.0.0.1 >NUL& echo finished& exit 3"
	e := start(ends)
	ended(e, 20*time.Second, "a hang guard, not a bound")
	if got, want := read(e, map[string]any{}), "Full Log Output:\nstarted\r\nfinished\r"; got != want {
		t.Errorf("%s: read %q, want %q", ends, got, want)
	}
	if got, want := read(e, map[string]any{"lines": 1}), "Showing last 1 of 2 lines:\nfinished\r"; got != want {
		t.Errorf("%s: read of 1 line %q, want %q", ends, got, want)
	}
	if got, want := listed(e), fmt.Sprintf("- [PID %d] EXITED: `%s` (Exit Code: 3)", e.Process.PID(), ends); got != want {
		t.Errorf("listed %q, want %q", got, want)
	}

	// One that would run half a minute, in ping, cmd.exe's child: read
	// while it runs, then killed. ping holds the output too, so the
	// process ends only once ping is gone: the kill reached cmd.exe's
	// tree.
	const runs = "echo started& ping -n 30 127.0.0.1 >NUL& echo not killed"
	e = start(runs)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got := read(e, map[string]any{})
		if got == "Full Log Output:\nstarted\r" {
			break
		}
		if got != "Log is empty." || time.Now().After(deadline) {
			t.Fatalf("%s: read %q while it runs", runs, got)
		}
	}
	if got, want := listed(e), fmt.Sprintf("- [PID %d] RUNNING: `%s`", e.Process.PID(), runs); got != want {
		t.Errorf("listed %q, want %q", got, want)
	}
	if err := e.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	ended(e, 15*time.Second, "ping, the child of the cmd.exe killed, holds its output")
	if got, want := read(e, map[string]any{}), "Full Log Output:\nstarted\r"; got != want {
		t.Errorf("%s: read %q after the kill, want %q", runs, got, want)
	}
	// TerminateProcess's exit code, which taskkill /F gives too: Windows
	// has no signals.
	if got, want := listed(e), fmt.Sprintf("- [PID %d] EXITED: `%s` (Exit Code: 1)", e.Process.PID(), runs); got != want {
		t.Errorf("listed %q, want %q", got, want)
	}
	if err := e.Process.Kill(); err != nil {
		t.Errorf("killing it again: %v", err)
	}
}
