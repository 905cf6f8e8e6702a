package agent

import (
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// general.retryFetchErrors false stops the retry of a connection that
// broke with no error code, as 0.61's isRetryableError does; a reset
// connection has a code and is still retried.
func TestNoFetchErrorRetryKeepsCodedNetworkErrors(t *testing.T) {
	noWait := func() float64 { return 0.5 }
	cases := []struct {
		err       error
		off, want bool
	}{
		{fmt.Errorf("reading the stream: %w", io.ErrUnexpectedEOF), false, true},
		{fmt.Errorf("reading the stream: %w", io.ErrUnexpectedEOF), true, false},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true, true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true, true},
	}
	for _, c := range cases {
		b := newBackoff(dialog.RetryPolicy{NoFetchErrorRetry: c.off, Rand: noWait})
		if _, got := b.next(c.err); got != c.want {
			t.Errorf("NoFetchErrorRetry %v, %v: retried %v, want %v", c.off, c.err, got, c.want)
		}
		if got := retriesCutOff(dialog.RetryPolicy{NoFetchErrorRetry: c.off}, &AnswerCutOffError{Cause: c.err}); got != c.want {
			t.Errorf("NoFetchErrorRetry %v, a stream cut off by %v: retried %v, want %v", c.off, c.err, got, c.want)
		}
	}
	if !retriesCutOff(dialog.RetryPolicy{NoFetchErrorRetry: true}, &AnswerCutOffError{}) {
		t.Error("an answer with no finish reason is not retried with retryFetchErrors off; 0.61 retries it (InvalidStreamError)")
	}
}

// maxAttempts bounds the retries of a stream that broke off too, as
// 0.61's mid-stream retries are bounded by it.
func TestCutOffLimitHeedsMaxAttempts(t *testing.T) {
	for _, c := range []struct{ max, want int }{{0, cutOffAttempts}, {2, 2}, {1, 1}, {10, cutOffAttempts}} {
		if got := cutOffLimit(dialog.RetryPolicy{MaxAttempts: c.max}); got != c.want {
			t.Errorf("MaxAttempts %d: %d attempts, want %d", c.max, got, c.want)
		}
	}
}
