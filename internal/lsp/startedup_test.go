package lsp_test

import (
	"context"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/lsp"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// Options.StartedUp waits for the client's initialized notification (the
// initialize result read: what it puts off no longer delays the editor),
// and runs once however many the client sends.
func TestStartedUpRunsOnceAfterInitialized(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	started := make(chan struct{}, 3)
	conn, _ := lsptest.StartInProcess(t, lsp.Options{
		Getenv:    func(string) string { return "" },
		StateDir:  t.TempDir(),
		StartedUp: func() { started <- struct{}{} },
	})
	c := lsptest.New(t, conn, lsptest.Plugin())
	if err := c.Call(ctx, "gemini/commands", nil, nil); err == nil {
		t.Fatal("gemini/commands answered before initialize")
	}
	select {
	case <-started:
		t.Fatal("StartedUp ran before initialize")
	default:
	}
	if _, err := c.Initialize(ctx, []string{t.TempDir()}, nil); err != nil { // sends initialized
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("StartedUp did not run after initialized")
	}
	for range 2 {
		if err := c.Notify(ctx, "initialized", map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	// A request answered after the notifications: they were handled.
	if err := c.Call(ctx, "gemini/commands", nil, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // StartedUp runs in its own goroutine
	if n := len(started); n != 0 {
		t.Fatalf("StartedUp ran %d more times after the first initialized", n)
	}
}
