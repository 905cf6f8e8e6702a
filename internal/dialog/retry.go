package dialog

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/ctxtime"
)

// RetryPolicy says how model requests are retried on rate limits (429) and
// server errors (5xx). The zero value is Gemini CLI's policy: 10 attempts,
// 5 s initial delay doubling up to 30 s, ±30% jitter, unless the server says
// how long to wait.
type RetryPolicy struct {
	MaxAttempts  int
	InitialDelay time.Duration
	MaxDelay     time.Duration
	// Sleep waits d or until ctx ends; a timer when nil. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter; math/rand when nil.
	Rand func() float64
	// NoFetchErrorRetry: a connection that broke with no network error
	// code (Node's "fetch failed", an incomplete JSON chunk) is not
	// retried, as general.retryFetchErrors false asks; a reset, refused or
	// timed-out connection still is.
	NoFetchErrorRetry bool
}

// WithDefaults is p with Gemini CLI's values where p has none.
func (p RetryPolicy) WithDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 10
	}
	if p.InitialDelay <= 0 {
		p.InitialDelay = 5 * time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = ctxtime.Sleep
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}
