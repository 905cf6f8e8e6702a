package e2e

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A run whose stdout nobody reads any more (`gemini-ls run | head`) ends
// at its first write that fails, as Gemini CLI 0.61's does: status 0 and
// no error on stderr, not killed by SIGPIPE (status 141 in the shell) in
// the middle of its turn. The turn is cancelled: the call the model asked
// for with the text that could not be written is not run, the model is
// not asked again, and the session is saved as cancelled.
func TestRunStopsWhenItsStdoutIsClosed(t *testing.T) {
	closed := make(chan struct{})
	h := newHeadless(t, map[string]string{"README.md": "# Project\n"},
		geminitest.Turn{Chunks: []geminitest.Chunk{
			{Text: "First line.\n"},
			{Call: geminitest.Call("list_directory", map[string]any{"dir_path": "."})},
		}},
		// Answered once the reader has gone.
		geminitest.Turn{From: func(geminitest.Request) geminitest.Turn {
			<-closed
			return geminitest.Turn{Chunks: []geminitest.Chunk{
				{Text: "Second line.\n"},
				{Call: geminitest.Call("write_file", map[string]any{"file_path": "after.txt", "content": "written\n"})},
			}}
		}},
		geminitest.TextTurn("Done."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, binary, "run", "--yolo", "-p", "survey")
	cmd.Dir, cmd.Env, cmd.Stdout = h.root, h.env, w
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first := make([]byte, len("First line.\n"))
	if _, err := io.ReadFull(r, first); err != nil || string(first) != "First line.\n" {
		t.Fatalf("stdout began %q (%v)", first, err)
	}
	r.Close()
	close(closed)

	err = cmd.Wait()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			t.Fatalf("gemini-ls was killed by %v; stderr:\n%s", status.Signal(), stderr.String())
		}
		t.Fatalf("gemini-ls exited %d, want 0 as Gemini CLI; stderr:\n%s", exit.ExitCode(), stderr.String())
	} else if err != nil {
		t.Fatal(err)
	}
	// The call that ran before the reader went is said, as every call
	// that runs is; nothing else is.
	if want := "gemini-ls: \u2713 list_directory (ReadFolder .)\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want only %q", stderr.String(), want)
	}
	if h.exists("after.txt") {
		t.Error("the call that came with the text nobody could read was run")
	}
	if left := h.model.Remaining(); left != 1 {
		t.Errorf("%d scripted turns left, want 1: the model was asked again after the reader went", left)
	}
	if saved := savedSession(t, h.env); !strings.Contains(saved, `"stopReason":"cancelled"`) {
		t.Errorf("the saved session does not end cancelled:\n%s", saved)
	}
}
