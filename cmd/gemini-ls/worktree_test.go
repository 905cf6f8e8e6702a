package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// -w without experimental.worktrees: 0.61's sentence, exit 1, nothing made.
func TestWorktreeNeedsTheSetting(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	code, stdout, stderr := runMain(t, "-C", dir, "-w", "x", "-p", "hi")
	if code != exitError || stdout != "" || !strings.HasPrefix(stderr, worktreeOff+"\n") {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitError, worktreeOff)
	}
}

func TestInWorktreesDir(t *testing.T) {
	for dir, want := range map[string]bool{
		"/p/.gemini/worktrees/x":   true,
		"/p/.gemini/worktrees/x/d": true,
		"/p/.gemini/worktrees":     false,
		"/p/worktrees/x":           false,
		"/p":                       false,
	} {
		if got := inWorktreesDir(filepath.FromSlash(dir)); got != want {
			t.Errorf("inWorktreesDir(%s) = %v, want %v", dir, got, want)
		}
	}
}
