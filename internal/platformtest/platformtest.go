// Package platformtest says, in one place, what a test needs from the
// operating system it runs on, and ends the test by a named reason where
// that is missing. Every package's tests run on Linux, macOS and Windows
// (scripts/test-windows.sh runs them under Wine, which has no Unix tools
// and no working symbolic links); a test that cannot mean anything on one
// of them is skipped there, saying why, never failed or passed blindly.
//
// Elsewhere than Windows a missing tool fails the test under CI, where the
// suites install what they need, and skips it on a contributor's machine.
package platformtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// Tool returns the path of the program name, which the test runs. Where
// it is missing the test ends: skipped on Windows, failed under CI.
func Tool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	switch {
	case runtime.GOOS == "windows":
		t.Skipf("needs %s, which this Windows does not have (Wine has none of the Unix tools)", name)
	case os.Getenv("CI") != "":
		t.Fatalf("needs %s: %v (the CI machine should have it)", name, err)
	default:
		t.Skipf("needs %s: %v", name, err)
	}
	return ""
}

// UnixShell skips t on Windows: it runs command lines in bash's syntax
// ($!, &, sleep, redirections to /dev/null), which the Windows shells do
// not speak. On Windows the agent's commands run in PowerShell or cmd
// (internal/osshell), which tests of their own cover.
func UnixShell(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("runs bash command lines; Windows runs PowerShell or cmd (internal/osshell)")
	}
}

// LocalShell returns the shell that runs this machine's command lines
// (osshell.Local), for a test of what gemini-ls does with a command it
// runs there, or skips t where that shell runs none: under Wine osshell
// finds Wine's powershell.exe, a stub that runs nothing and exits 0.
// Such a test writes its commands in what all the shells read alike
// (echo, >) or by the shell's Kind, quoting by its Quote.
func LocalShell(t testing.TB) osshell.Shell {
	t.Helper()
	sh := osshell.Local()
	if runtime.GOOS != "windows" {
		return sh
	}
	out, err := sh.Command(context.Background(), nil, spawn.Helper{Name: "the local shell"}, "echo ran").Output()
	if err != nil || !strings.Contains(string(out), "ran") {
		t.Skipf("%s runs no command line here (Wine's powershell.exe is a stub): said %q, %v", sh.Executable, out, err)
	}
	return sh
}

// Unix skips t on Windows, where what it checks does not exist: why names
// it ("file modes", "Unix sockets", "FIFOs", "process groups").
func Unix(t testing.TB, why string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skipf("Windows has no %s", why)
	}
}

// Symlink makes a symbolic link as os.Symlink does, or skips t where links
// cannot be made: on Windows without Developer Mode or the privilege to
// make them, and under Wine, whose CreateSymbolicLink is a stub that
// reports success and makes nothing (so the link is looked for too).
func Symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	err := os.Symlink(oldname, newname)
	if err == nil {
		// Wine's CreateSymbolicLink says it made the link and makes none.
		if fi, lerr := os.Lstat(newname); lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
			err = fmt.Errorf("os.Symlink succeeded, yet %s is no symbolic link", newname)
		}
	}
	if err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("symbolic links cannot be made here: %v", err)
		}
		t.Fatal(err)
	}
}

// SetHome makes dir the user's home for the test's process: HOME, which
// Unix reads, and USERPROFILE, which Windows reads instead (as Node's
// os.homedir does, internal/settings.SystemHome).
func SetHome(t testing.TB, dir string) {
	t.Helper()
	t.Setenv("HOME", dir)
	t.Setenv("USERPROFILE", dir)
}

// HomeEnv is dir as the home of a child process, in both variables, to
// append to its environment.
func HomeEnv(dir string) []string {
	return []string{"HOME=" + dir, "USERPROFILE=" + dir}
}

// HomeVars adds dir as the home to vars, a getenv map, in both variables,
// and returns vars.
func HomeVars(vars map[string]string, dir string) map[string]string {
	vars["HOME"] = dir
	vars["USERPROFILE"] = dir
	return vars
}

// Linux skips t elsewhere than Linux: what it drives is Linux's alone,
// as why says ("debootstrap and pivot_root", "/proc").
func Linux(t testing.TB, why string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("Linux only: %s", why)
	}
}

// OpenOn counts this process's descriptors open on dir, as Linux's
// /proc/self/fd names them; a test of what stays open runs on Linux.
func OpenOn(t testing.TB, dir string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("listing the open descriptors: %v", err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == dir {
			n++
		}
	}
	return n
}
