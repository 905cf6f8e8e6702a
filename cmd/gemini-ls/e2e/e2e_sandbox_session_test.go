//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A sandboxed session's foreground commands share one bubblewrap
// sandbox: two commands see the same pid namespace, one bwrap stays
// while the session lives, and session/close (the build's Close) leaves
// no bwrap behind while gemini-ls still runs.
func TestACPSandboxedCommandsShareOneSandbox(t *testing.T) {
	const probe = "readlink /proc/self/ns/pid"
	h := startACP(t, acpSetup{home: shellAllowedHome(t), env: []string{"GEMINI_SANDBOX=true"}},
		shellCall(probe, nil),
		shellCall(probe, nil),
		geminitest.TextTurn("Done."))
	h.mustPrompt("Run them", sdk.StopReasonEndTurn)
	first, _ := h.result(1)
	second, _ := h.result(2)
	ns := regexp.MustCompile(`pid:\[\d+\]`)
	a, b := ns.FindString(first), ns.FindString(second)
	if a == "" || a != b {
		t.Errorf("the two commands ran in pid namespaces %q and %q, want one:\n%s\n%s", a, b, first, second)
	}
	pid := h.proc.Cmd.Process.Pid
	if n := len(bwrapsUnder(pid)); n != 1 {
		t.Errorf("%d bwrap processes under gemini-ls while the session lives, want 1", n)
	}
	if _, err := h.client.Conn.CloseSession(h.ctx, sdk.CloseSessionRequest{SessionId: h.session}); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(bwrapsUnder(pid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := bwrapsUnder(pid); len(left) > 0 {
		t.Errorf("bwrap processes %v outlived session/close", left)
	}
}

// bwrapsUnder are the pids of the bwraps descending from pid, found in
// /proc: one for each sandbox (the process a bwrap forks inside, its
// pid namespace's init, is not counted).
func bwrapsUnder(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	var bwraps []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the command's name, in parentheses: the state, then the
		// parent's pid.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(fields[1])
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && filepath.Base(exe) == "bwrap" {
			bwraps = append(bwraps, p)
		}
	}
	var under []int
	for _, b := range bwraps {
		if slices.Contains(bwraps, parent[b]) {
			continue
		}
		for p := parent[b]; p > 1; p = parent[p] {
			if p == pid {
				under = append(under, b)
				break
			}
		}
	}
	return under
}
