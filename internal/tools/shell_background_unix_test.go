//go:build unix

package tools

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/procgroup/procgrouptest"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
)

// startBackground runs command with is_background in reg and returns the
// PID the model is told.
func startBackground(t *testing.T, tw *testWorkspace, reg *background.Registry, command string, delayMS int) int {
	t.Helper()
	call := build(t, tw.tool(ShellName, Options{}), map[string]any{"command": command, "is_background": true, "delay_ms": delayMS})
	if !strings.HasSuffix(call.Title(), " [background]") {
		t.Errorf("title %q does not say it runs in the background", call.Title())
	}
	res, err := call.Execute(t.Context(), CallInfo{Background: reg})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^Command is running in background\. PID: (\d+)\. Initial output:\n`).FindStringSubmatch(res.Output)
	if m == nil || res.Display != "Background process started with PID "+m[1]+"." {
		t.Fatalf("result %+v", res)
	}
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { _ = reg.Close() })
	return pid
}

func backgroundTool(t *testing.T, tw *testWorkspace, name string, reg *background.Registry, args map[string]any) Result {
	t.Helper()
	res, err := build(t, tw.tool(name, Options{}), args).Execute(t.Context(), CallInfo{Background: reg})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A server started in the background is listed, its output read, and
// killed with its whole group when the session's registry closes.
func TestShellBackgroundServer(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	var reg background.Registry
	// The server's child writes its pid: the group, not the shell alone, must go.
	command := "sleep 1000 & echo $! > child.pid; " + procgrouptest.HTTPServer(t)
	pid := startBackground(t, tw, &reg, command, 0)
	child := procgrouptest.PID(t, tw.abs("child.pid"))

	list := backgroundTool(t, tw, ListBackgroundName, &reg, nil)
	want := "- [PID " + strconv.Itoa(pid) + "] RUNNING: `" + command + "`"
	if list.Output != want {
		t.Errorf("listing %q, want %q", list.Output, want)
	}
	var out Result
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out = backgroundTool(t, tw, ReadBackgroundName, &reg, map[string]any{"pid": pid})
		if strings.Contains(out.Output, "Serving HTTP on 127.0.0.1 port ") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.HasPrefix(out.Output, "Full Log Output:\nServing HTTP on 127.0.0.1 port ") {
		t.Errorf("output %q", out.Output)
	}
	if res := backgroundTool(t, tw, ReadBackgroundName, &reg, map[string]any{"pid": pid + 100000}); !strings.Contains(res.Error, "not found in this session's history") {
		t.Errorf("another pid: %+v", res)
	}

	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	procgrouptest.WaitGone(t, pid)
	procgrouptest.WaitGone(t, child)
	for _, e := range reg.List() {
		<-e.Process.Done()
	}
	// Ended, it is listed as such; nothing more starts in the session.
	if list := backgroundTool(t, tw, ListBackgroundName, &reg, nil); !strings.Contains(list.Output, "] EXITED: `") || !strings.Contains(list.Output, "(Signal: SIGKILL)") {
		t.Errorf("listing after close %q", list.Output)
	}
	res, err := build(t, tw.tool(ShellName, Options{}), map[string]any{"command": "sleep 1000", "is_background": true}).Execute(t.Context(), CallInfo{Background: &reg})
	if err != nil || res.Error != "Refused, nothing was run: the session has ended: no background process can be started in it." {
		t.Errorf("started after close: %+v, %v", res, err)
	}
}

// What a background command outputs is kept bounded, its tail, and the
// model is told how much was cut.
func TestShellBackgroundOutputBounded(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	var reg background.Registry
	// 200000 numbered lines, far beyond what is kept, then a last word.
	pid := startBackground(t, tw, &reg, "seq 1 200000; echo done; sleep 1000", 0)
	var out Result
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out = backgroundTool(t, tw, ReadBackgroundName, &reg, map[string]any{"pid": pid, "lines": 3})
		if strings.HasSuffix(out.Output, "\ndone") || time.Now().After(deadline) {
			break
		}
	}
	m := regexp.MustCompile(`^\[Output truncated: (\d+) bytes of output are kept, the last; the (\d+) bytes before them are gone\]\nShowing last 3 of \d+ lines:\n199999\n200000\ndone$`).FindStringSubmatch(out.Output)
	if m == nil {
		t.Fatalf("output %q", out.Output)
	}
	kept, _ := strconv.Atoi(m[1])
	gone, _ := strconv.Atoi(m[2])
	total := len(strings.Join(func() []string {
		var s []string
		for i := 1; i <= 200000; i++ {
			s = append(s, strconv.Itoa(i))
		}
		return s
	}(), "\n")) + len("\ndone\n")
	if kept != maxBackgroundOutput || kept+gone != total {
		t.Errorf("kept %d, gone %d, of %d", kept, gone, total)
	}
}

// A command that ends within the delay is reported as one run in the
// foreground, and is not kept.
func TestShellBackgroundEndsWithinDelay(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	var reg background.Registry
	res, err := build(t, tw.tool(ShellName, Options{}), map[string]any{"command": "echo quick", "is_background": true, "delay_ms": 20000}).Execute(t.Context(), CallInfo{Background: &reg})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := shellOutput(t, res)
	if !strings.Contains(head, "Output: quick\n") || !strings.Contains(head, "Exit Code: 0\n") {
		t.Errorf("result %q", res.Output)
	}
	if len(reg.List()) != 0 {
		t.Errorf("kept %v", reg.List())
	}
}
