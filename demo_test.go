package geminils_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// make demo's first build takes minutes with nothing of its own to show
// (its chatter goes to build/demo/build.log): it says every 10 s how far
// Go got, and shows the log when the build fails. A go that compiles two
// packages and then fails after 11 s stands in for the slow build.
func TestMakeDemoShowsTheBuildMoving(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("make and a shell script for go are Unix tools")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("needs make")
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	dir, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), makefile, 0o644); err != nil {
		t.Fatal(err)
	}
	fakeGo := "#!/bin/sh\necho example.com/one >&2\necho example.com/two >&2\nsleep 11\necho 'compile: the end' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "--no-print-directory", "demo")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("make demo succeeded with a go that failed:\n%s", out)
	}
	for _, want := range []string{"still building: 2 packages compiled in 1", "compile: the end"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make demo's output lacks %q:\n%s", want, out)
		}
	}
}
