package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
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
}

func (p RetryPolicy) withDefaults() RetryPolicy {
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
		p.Sleep = sleep
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finalError marks an error that must not be retried, such as a stream
// that failed after it had already delivered output.
type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }
func (e finalError) Unwrap() error { return e.err }

// do runs fn until it succeeds, fails with an error that is not worth
// retrying, runs out of attempts, or ctx ends. onRetry, when set, hears of
// each retry before the wait.
func (p RetryPolicy) do(ctx context.Context, fn func() error, onRetry func(attempt int, err error, wait time.Duration)) error {
	p = p.withDefaults()
	delay := p.InitialDelay
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil {
			return nil
		}
		if final, ok := err.(finalError); ok {
			return final.err
		}
		if attempt >= p.MaxAttempts || ctx.Err() != nil || !retryable(err) {
			return err
		}
		var wait time.Duration
		if d, ok := serverDelay(err); ok {
			// The server knows best; start backing off afresh afterwards.
			wait, delay = d, p.InitialDelay
		} else {
			jitter := float64(delay) * 0.3 * (p.Rand()*2 - 1)
			wait = max(0, delay+time.Duration(jitter))
			delay = min(p.MaxDelay, delay*2)
		}
		if onRetry != nil {
			onRetry(attempt, err, wait)
		}
		if err := p.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// retryable reports whether err is a rate limit or a server error.
func retryable(err error) bool {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.Code == 429 || apiErr.Code >= 500 && apiErr.Code <= 599
}

// retryInMessage matches Gemini's "Please retry in 12.5s." hint.
var retryInMessage = regexp.MustCompile(`(?i)retry (?:in|after) ([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\b`)

// serverDelay is how long the server asked us to wait: a RetryInfo
// retryDelay in the error details, else a "retry in" hint in the message.
func serverDelay(err error) (time.Duration, bool) {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return 0, false
	}
	for _, d := range apiErr.Details {
		typ, _ := d["@type"].(string)
		if !strings.HasSuffix(typ, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if v, err := time.ParseDuration(s); err == nil && v >= 0 {
				return v, true
			}
		}
	}
	if m := retryInMessage.FindStringSubmatch(apiErr.Message); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			unit := time.Second
			if strings.EqualFold(m[2], "ms") {
				unit = time.Millisecond
			}
			return time.Duration(v * float64(unit)), true
		}
	}
	return 0, false
}
