//go:build linux

package policy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// FuzzDenyRuleHoldsAgainstRealBash is the deny judgement against real
// bash (issue 95): with rm denied and every line allowed beneath, in
// yolo (nobody asked), a line the rules allow is run by bash, inside
// bubblewrap (the root read-only, no network, its own process
// namespace), with a marker program bound over /usr/bin/rm and first on
// PATH; the marker must never run. Lines that background a job (&) or
// define a function are not run: a fork bomb is no finding.
//
//	go test -run '^$' -fuzz FuzzDenyRuleHoldsAgainstRealBash ./internal/policy/
func FuzzDenyRuleHoldsAgainstRealBash(f *testing.F) {
	bash, errBash := exec.LookPath("bash")
	bwrap, errBwrap := exec.LookPath("bwrap")
	if errBash != nil || errBwrap != nil {
		f.Skip("needs bash and bubblewrap")
	}
	dir := f.TempDir()
	marker := filepath.Join(dir, "bin", "rm")
	ran := filepath.Join(dir, "work", "rm-ran")
	for _, d := range []string{filepath.Dir(marker), filepath.Dir(ran)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(marker, []byte("#!/bin/sh\necho \"rm $*\" >> '"+ran+"'\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	if out, err := exec.Command(bwrap, sandbox(dir, marker, bash, "true")...).CombinedOutput(); err != nil {
		f.Skipf("bubblewrap cannot run here: %v %s", err, out)
	}
	for _, seed := range append(append([]string{}, denySeeds...), issue95Escapes...) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, command string) {
		e := denyBeneathAllow(t, "rm")
		if len(command) > 1024 || strings.ContainsAny(command, "&\x00") {
			return
		}
		c := shellCall(command)
		c.Mode = ModeYolo
		if v := e.Check(c); v.Decision != Allow {
			return
		}
		if line, _ := parseShell(osshell.Bash, command, true); strings.Contains(line.unjudged, "function") {
			return
		}
		work := filepath.Join(dir, "work")
		if err := os.RemoveAll(work); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bwrap, sandbox(dir, marker, bash, command)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		_ = cmd.Run() // what the line does besides rm is no concern
		if out, err := os.ReadFile(ran); err == nil {
			t.Errorf("yolo, rm denied: %q is allowed, yet bash ran %q", command, out)
		}
	})
}

// sandbox are bubblewrap's arguments running command in bash inside
// dir/work: the root read-only, the marker over rm.
func sandbox(dir, marker, bash, command string) []string {
	work := filepath.Join(dir, "work")
	return []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", work, work, "--ro-bind", marker, "/usr/bin/rm", "--unshare-all", "--die-with-parent", "--chdir", work,
		"--setenv", "PATH", filepath.Dir(marker) + ":/usr/bin:/bin", "--setenv", "HOME", work,
		bash, "--norc", "--noprofile", "-c", command}
}
