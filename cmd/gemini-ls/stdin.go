package main

import (
	"context"
	"errors"
	"io"
	"time"
	"unicode/utf8"
)

const (
	// maxStdin bounds what a run reads of its stdin, as Gemini CLI's
	// readStdin does (8 MiB, the rest dropped with a warning).
	maxStdin = 8 << 20
	// stdinWait is how long a run waits for the first bytes of a stdin
	// that is not a terminal before it takes it for empty, as Gemini
	// CLI's pipedInputShouldBeAvailableInMs: a pipe nobody writes to (a
	// CI runner's, a parent's) must not hang the run.
	stdinWait = 500 * time.Millisecond
)

// pipedInput is what r holds, read until its end or maxStdin bytes
// (truncated then), or "" when nothing comes within stdinWait.
func pipedInput(ctx context.Context, r io.Reader) (text string, truncated bool, err error) {
	started := make(chan struct{})
	done := make(chan error, 1)
	var buf []byte
	go func() {
		// This goroutine owns r and buf until done; when nothing comes,
		// it is left blocked in Read, and the process ends without it.
		chunk := make([]byte, 64<<10)
		once := false
		for len(buf) <= maxStdin {
			n, err := r.Read(chunk)
			if n > 0 && !once {
				once = true
				close(started)
			}
			buf = append(buf, chunk[:n]...)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				done <- err
				return
			}
		}
		done <- nil
	}()
	wait := time.NewTimer(stdinWait)
	defer wait.Stop()
	select {
	case <-started:
	case err := <-done: // the end came first, with all there is
		done <- err
	case <-wait.C:
		return "", false, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
	select {
	case err := <-done:
		if err != nil {
			return "", false, err
		}
	case <-ctx.Done():
		return "", false, ctx.Err()
	}
	if len(buf) <= maxStdin {
		return string(buf), false, nil
	}
	return cutUTF8(buf[:maxStdin]), true, nil
}

// cutUTF8 is b less a rune its end cuts in two.
func cutUTF8(b []byte) string {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return string(b)
}
