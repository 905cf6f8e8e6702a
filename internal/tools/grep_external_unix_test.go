//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/spawn/spawntest"
)

// leavingTool is rg's command line given to a program that exits leaving
// a child that holds its output, as a search program gone wrong could.
type leavingTool struct {
	ripgrep
	path string
}

func (l leavingTool) name() string { return l.path }

// TestGrepExternalEngineLeavesNothingRunning: a search program's child
// that holds its output open is killed with the program's process group
// when the search's time is up, and the search returns.
func TestGrepExternalEngineLeavesNothingRunning(t *testing.T) {
	tw := newTestWorkspace(t, map[string]string{"a.txt": "x\n"})
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	program := filepath.Join(dir, "search")
	if err := os.WriteFile(program, []byte("#!/bin/sh\nsleep 300 & echo $! > '"+pidFile+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	call := build(t, tw.tool(GrepSearchName, Options{}), map[string]any{"pattern": "x"}).(*grepCall)
	call.engine = externalGrep{tool: leavingTool{path: program}, dir: tw.root}
	call.timeout = 200 * time.Millisecond
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = call.Execute(t.Context(), CallInfo{})
	}()
	spawntest.WaitGone(t, spawntest.PID(t, pidFile))
	<-done
}
