package acp

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"
)

// brokenPipe is a client that stopped reading: every write fails as one
// to a pipe whose reading end is closed.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// A write that fails ends Serve, as the end of its input does, though the
// input stays open.
func TestServeEndsWhenAWriteFails(t *testing.T) {
	in, client := io.Pipe()
	t.Cleanup(func() { _ = in.Close() })
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), in, brokenPipe{}, Options{Getenv: func(string) string { return "" }})
	}()
	// The request's answer is the write that fails.
	if _, err := fmt.Fprintln(client, `{"jsonrpc":"2.0","id":1,"method":"gemini/nothing","params":{}}`); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when a write to the client failed")
	}
}
