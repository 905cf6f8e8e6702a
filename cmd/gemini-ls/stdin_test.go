package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// pipedInput reads at most 8 MiB, cut on a rune, and takes a stdin
// nobody writes to for empty after half a second, as Gemini CLI's
// readStdin.
func TestPipedInput(t *testing.T) {
	big := strings.Repeat("a", maxStdin-1) + "é" + "tail"
	got, truncated, err := pipedInput(context.Background(), strings.NewReader(big))
	if err != nil || !truncated || got != strings.Repeat("a", maxStdin-1) {
		t.Errorf("8 MiB and more: %d bytes, truncated %v, err %v; want %d bytes of a", len(got), truncated, err, maxStdin-1)
	}
	got, truncated, err = pipedInput(context.Background(), strings.NewReader("small"))
	if err != nil || truncated || got != "small" {
		t.Errorf("small: %q %v %v", got, truncated, err)
	}
	silent, w := io.Pipe()
	defer w.Close()
	start := time.Now()
	got, _, err = pipedInput(context.Background(), silent)
	if err != nil || got != "" || time.Since(start) < stdinWait {
		t.Errorf("a silent pipe: %q, %v after %s, want empty after %s", got, err, time.Since(start), stdinWait)
	}
}
