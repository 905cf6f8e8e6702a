package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"syscall"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// backoff paces the retries of one request: the attempts made and the
// next delay.
type backoff struct {
	p        dialog.RetryPolicy // with defaults
	attempts int
	delay    time.Duration
}

func newBackoff(p dialog.RetryPolicy) *backoff {
	p = p.WithDefaults()
	return &backoff{p: p, delay: p.InitialDelay}
}

// reset starts counting afresh, as after a switch to another model.
func (b *backoff) reset() {
	b.attempts, b.delay = 0, b.p.InitialDelay
}

// next counts a failed attempt and returns how long to wait before the
// next one, or false when err is not worth retrying (see classify) or the
// attempts are used up.
func (b *backoff) next(err error) (time.Duration, bool) {
	b.attempts++
	switch kind := classify(err); {
	case b.attempts >= b.p.MaxAttempts:
		return 0, false
	case kind != failTransient && kind != failBroken:
		return 0, false // failUnreachable too: see there
	case kind == failBroken && b.p.NoFetchErrorRetry && fetchError(err):
		return 0, false
	}
	if d, ok := serverDelay(err); ok {
		// The server knows best; start backing off afresh afterwards.
		b.delay = b.p.InitialDelay
		return d, true
	}
	jitter := float64(b.delay) * 0.3 * (b.p.Rand()*2 - 1)
	wait := max(0, b.delay+time.Duration(jitter))
	b.delay = min(b.p.MaxDelay, b.delay*2)
	return wait, true
}

// retrying runs fn until it succeeds, fails with an error that is not worth
// retrying (a connection that could not be made is not: see
// failUnreachable), runs out of attempts, or ctx ends. onRetry, when set,
// hears of each retry before the wait.
func retrying(ctx context.Context, p dialog.RetryPolicy, fn func() error, onRetry func(attempt int, err error, wait time.Duration)) error {
	b := newBackoff(p)
	for {
		err := fn()
		if err == nil {
			return nil
		}
		if down := unreachable(err); down != nil {
			err = down
		}
		if ctx.Err() != nil {
			return err
		}
		wait, ok := b.next(err)
		if !ok {
			return err
		}
		if onRetry != nil {
			onRetry(b.attempts, err, wait)
		}
		if err := b.p.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// failure is what a failed model request calls for.
type failure int

const (
	// failFinal: not worth retrying (a bad request, a blocked prompt).
	failFinal failure = iota
	// failTransient: a rate limit or server error (429, 499, 5xx),
	// retried with the RetryPolicy.
	failTransient
	// failQuota: a quota that will not come back soon (a daily or Pro
	// quota, a limit of 0, a wait of more than apierror.MaxServerDelay). Retrying
	// is pointless; a fallback model may help.
	failQuota
	// failBroken: the connection broke (reset, unexpected EOF, a torn
	// chunk), retried as a stream that broke off.
	failBroken
	// failUnreachable: no connection could be made (refused, no route,
	// unknown host): nothing was sent, and it is no rate limit that a
	// wait of seconds lifts. Only the chat request retries it, a few
	// times quickly, telling the user each time (turn.stream); any other
	// request (routing, a loop check, compression, a tool's) fails at
	// once, for the chat request goes to the same endpoint and says so.
	failUnreachable
)

func classify(err error) failure {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.Code == 429 || apiErr.Code == 499 || apiErr.Code == 503:
			if quotaExhausted(apiErr) {
				return failQuota
			}
			return failTransient
		case apiErr.Code >= 500 && apiErr.Code <= 599:
			return failTransient
		}
		return failFinal
	}
	if unreachable(err) != nil {
		return failUnreachable
	}
	if brokenConnection(err) {
		return failBroken
	}
	return failFinal
}

// brokenConnection reports whether err is the transport failing: what
// Gemini CLI retries as ECONNRESET, ETIMEDOUT, EPIPE, "fetch failed" and
// "incomplete json segment".
func brokenConnection(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var opErr *net.OpError
	var netErr net.Error
	var syntaxErr *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &opErr) || errors.As(err, &netErr) && netErr.Timeout() || errors.As(err, &syntaxErr)
}

// fetchError reports whether err is a broken connection with no network
// error code: what Node reports as "fetch failed" or "incomplete json
// segment", which Gemini CLI 0.61 retries only while
// general.retryFetchErrors is on (isRetryableError). A reset, a broken
// pipe, a refusal or a timeout has a code, retried whatever the setting.
func fetchError(err error) bool {
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ETIMEDOUT) {
		return false
	}
	if netErr, ok := errors.AsType[net.Error](err); ok && netErr.Timeout() {
		return false
	}
	return brokenConnection(err)
}

// UnreachableError is a model request that never reached the server: no
// connection to Endpoint could be made. Nothing was sent or received, so
// nothing broke off; a chat request retries it as an answer that broke
// off before any of it was shown, other requests not at all
// (failUnreachable).
type UnreachableError struct {
	// Endpoint is where the request went: the URL's scheme and host
	// ("http://127.0.0.1:8080"), else the address dialled.
	Endpoint string
	// Proxy is the proxy that could not be reached on the way there; ""
	// when none was used.
	Proxy string
	// Cause is the transport's error.
	Cause error
	// Attempts is how many attempts in a row failed in the transport,
	// this one last, when the prompt ends with it; 0 on each retry.
	Attempts int
}

func (e *UnreachableError) Error() string {
	msg := "could not connect to " + e.Endpoint
	if e.Proxy != "" {
		msg = fmt.Sprintf("could not connect to the proxy %s (for %s)", e.Proxy, e.Endpoint)
	}
	msg += ": " + dialFailure(e.Cause)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	return msg
}

func (e *UnreachableError) Unwrap() error { return e.Cause }

// unreachable is err as an *UnreachableError when it is a failure to
// connect (a dial, or a proxy's), nil when it is not.
func unreachable(err error) *UnreachableError {
	if down, ok := errors.AsType[*UnreachableError](err); ok {
		return down
	}
	opErr, ok := errors.AsType[*net.OpError](err)
	if !ok || opErr.Op != "dial" && opErr.Op != "proxyconnect" {
		return nil
	}
	down := &UnreachableError{Cause: err}
	if urlErr, ok := errors.AsType[*url.Error](err); ok {
		if u, perr := url.Parse(urlErr.URL); perr == nil && u.Host != "" {
			down.Endpoint = u.Scheme + "://" + u.Host
		}
	}
	dialled := opErr
	if opErr.Op == "proxyconnect" {
		// The transport wraps the dial of the proxy, which has its address.
		if inner, ok := errors.AsType[*net.OpError](opErr.Err); ok {
			dialled = inner
		}
		down.Proxy = "(unknown address)"
		if dialled.Addr != nil {
			down.Proxy = dialled.Addr.String()
		}
	}
	if down.Endpoint == "" {
		down.Endpoint = "the model server"
		if dialled.Addr != nil && down.Proxy == "" {
			down.Endpoint = dialled.Addr.String()
		}
	}
	return down
}

// dialFailure is why a connection could not be made, in the system's
// words ("connection refused", "lookup x: no such host"), without the
// layers of operations around them: the same words on Windows, whose
// own differ (errnoWords).
func dialFailure(err error) string {
	var opErr *net.OpError
	for errors.As(err, &opErr) {
		err = opErr.Err
	}
	if sysErr, ok := errors.AsType[*os.SyscallError](err); ok {
		err = sysErr.Err
	}
	if err == nil {
		return "the connection failed"
	}
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		if words := errnoWords(errno); words != "" {
			return words
		}
	}
	return err.Error()
}

// quotaExhausted reports whether a 429/499/503 says the quota is used up
// for long (apierror.QuotaExhausted).
func quotaExhausted(apiErr genai.APIError) bool { return apierror.QuotaExhausted(apiErr) }

// serverDelay is how long the server asked us to wait (apierror.RetryDelay).
func serverDelay(err error) (time.Duration, bool) { return apierror.RetryDelay(err) }

// retryReason says in words why a request is tried again.
func retryReason(err error) string {
	var apiErr genai.APIError
	var cut *AnswerCutOffError
	var down *UnreachableError
	switch {
	case errors.As(err, &down):
		return down.Error()
	case errors.As(err, &cut):
		return cut.what() + " before any answer was shown"
	case errors.As(err, &apiErr):
		what := "the model server failed"
		switch {
		case classify(apiErr) == failQuota:
			what = "the model's quota is used up"
		case apiErr.Code == 429:
			what = "the model is rate-limited"
		case apiErr.Code == 503:
			what = "the model is overloaded"
		case apiErr.Code == 499:
			what = "the model server cancelled the request"
		}
		return fmt.Sprintf("%s (%s)", what, apiStatus(apiErr))
	}
	return err.Error()
}

// AnswerCutOffError is a model answer whose stream broke off or ended
// without a finish reason. Before anything was shown it is retried; after,
// a retry would repeat what the user saw, so the turn ends with it: the
// partial text stays in the transcript (PromptResult.Text) but not in the
// conversation, and the calls it made are not run.
type AnswerCutOffError struct {
	// Cause is the transport or server error; nil when the stream simply
	// ended without a finish reason.
	Cause error
	// Calls is the number of function calls received and not run.
	Calls int
}

func (e *AnswerCutOffError) what() string {
	if e.Cause == nil {
		return "the model's answer ended without a finish reason"
	}
	return fmt.Sprintf("the model's answer stream broke off (%v)", e.Cause)
}

func (e *AnswerCutOffError) Error() string {
	msg := "the answer was cut off: " + e.what()
	if e.Calls > 0 {
		msg += fmt.Sprintf("; the %d tool call(s) it made were not run", e.Calls)
	}
	return msg + ". The partial answer was not kept in the conversation; ask again to continue."
}

func (e *AnswerCutOffError) Unwrap() error { return e.Cause }

// Streams that break off before anything was shown are retried as Gemini
// CLI retries an InvalidStreamError mid-stream: 4 attempts in all, waiting
// 1 s, 2 s, 4 s.
const (
	cutOffAttempts = 4
	cutOffDelay    = time.Second
)

// cutOffLimit is how many answers in a row may break off before any of
// them was shown: 0.61's mid-stream retries, bounded by maxAttempts too
// (geminiChat: attempt < maxAttempts - 1 && attempt < 3).
func cutOffLimit(p dialog.RetryPolicy) int {
	return min(cutOffAttempts, p.WithDefaults().MaxAttempts)
}

// retriesCutOff reports whether an answer cut off by err may be asked
// for again: not when the connection broke with no error code and
// general.retryFetchErrors is off.
func retriesCutOff(p dialog.RetryPolicy, cut *AnswerCutOffError) bool {
	return cut.Cause == nil || !p.NoFetchErrorRetry || !fetchError(cut.Cause)
}

// gaveUp is the error after n answers in a row broke off before any of
// them was shown.
func (e *AnswerCutOffError) gaveUp(n int) error {
	msg := fmt.Sprintf("the model's answer broke off %d times in a row before any of it was shown: ", n)
	if n == 1 { // general.maxAttempts 1: no retry
		msg = "the model's answer broke off before any of it was shown (general.maxAttempts is 1, so it was not asked for again): "
	}
	if e.Cause == nil {
		return errors.New(msg + "it ended without a finish reason")
	}
	return fmt.Errorf("%s%w", msg, e.Cause)
}

// persistentRateLimit is how many 429s in a row make a Pro model's rate
// limit persistent enough to offer the fallback model (Gemini CLI's
// consecutive429Count).
const persistentRateLimit = 2

// apiCode is err's HTTP status, 0 when it is not an API error.
func apiCode(err error) int {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code
	}
	return 0
}

// apiStatus names err's status as "429 RESOURCE_EXHAUSTED".
func apiStatus(err error) string {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return err.Error()
	}
	if apiErr.Status == "" {
		return strconv.Itoa(apiErr.Code)
	}
	return fmt.Sprintf("%d %s", apiErr.Code, apiErr.Status)
}

// wait tells the log and the user that a request failed with err and is
// tried again after d, then waits d unless the prompt is cancelled first.
func (t *turn) wait(model string, attempt int, d time.Duration, reason string, err error) error {
	a := t.s.agent
	a.log.retry(model, t.promptID, attempt, err, d)
	t.emit(dialog.RetryEvent{Retry: dialog.RetryInfo{Attempt: attempt, Delay: d, Reason: reason}})
	return a.cfg.Retry.WithDefaults().Sleep(t.ctx, d)
}

// streamRetries is what the attempts at one answer share.
type streamRetries struct {
	policy  dialog.RetryPolicy
	backoff *backoff
	// fallBack offers the user another model in model's place, why
	// saying what failed (turn.fallBack); switched says they took it.
	fallBack func(model, why string, cause error) (switched bool, err error)
	// cutOffs counts the answers that broke off (or requests that could
	// not connect), rateLimited the 429s in a row; offered says a
	// fallback was offered for them.
	cutOffs, rateLimited int
	offered              bool
}

// retryStep is what stream does after an attempt failed before any of
// its answer was shown.
type retryStep int

const (
	retryAfterWait retryStep = iota // wait, then ask again
	retrySwitched                   // the model was switched: ask it at once, attempts counted afresh
	retryGiveUp                     // end with the error
)

// afterFailure decides what follows a failed attempt on model: a wait
// and a retry, a fallback to another model (unless a hook chose the
// model: hookModel), or giving up; err is the failure as it is told (a
// broken stream an *AnswerCutOffError, no connection an
// *UnreachableError).
func (r *streamRetries) afterFailure(model string, hookModel bool, err error) (retryStep, time.Duration, error) {
	kind := classify(err)
	switch kind {
	case failBroken:
		err = &AnswerCutOffError{Cause: err}
	case failUnreachable:
		err = unreachable(err)
	}
	var cut *AnswerCutOffError
	var down *UnreachableError
	switch {
	case errors.As(err, &cut), errors.As(err, &down):
		return r.afterCutOff(err, cut, down)
	case kind == failQuota && hookModel:
		// A BeforeModel hook chose the model: no fallback replaces it.
		return retryGiveUp, 0, err
	case kind == failQuota:
		switched, ferr := r.fallBack(model, fmt.Sprintf("%s is out of quota (%s)", model, apiStatus(err)), err)
		if ferr != nil {
			return retryGiveUp, 0, ferr
		}
		if !switched {
			return retryGiveUp, 0, err
		}
		r.backoff.reset()
		r.cutOffs, r.rateLimited, r.offered = 0, 0, false
		return retrySwitched, 0, err
	}
	return r.afterRefusal(model, hookModel, err)
}

// afterCutOff paces a request that could not connect as an answer that
// broke off before anything was shown, and counts it with them: the
// transport fails either way. err is the failure, cut or down (one of
// them set) what it holds.
func (r *streamRetries) afterCutOff(err error, cut *AnswerCutOffError, down *UnreachableError) (retryStep, time.Duration, error) {
	retry := r.policy
	r.cutOffs++
	switch {
	case cut != nil && !retriesCutOff(retry, cut):
		return retryGiveUp, 0, fmt.Errorf("the model's answer broke off before any of it was shown, not retried as general.retryFetchErrors is false: %w", cut.Cause)
	case r.cutOffs < cutOffLimit(retry):
		return retryAfterWait, cutOffDelay << (r.cutOffs - 1), err
	case down != nil:
		down.Attempts = r.cutOffs
		return retryGiveUp, 0, down
	}
	return retryGiveUp, 0, cut.gaveUp(r.cutOffs)
}

// afterRefusal decides what follows a request the API refused (a rate
// limit, a server error): once rate limits persist, a fallback is offered
// unless a hook chose the model; otherwise the backoff says whether and
// when to retry.
func (r *streamRetries) afterRefusal(model string, hookModel bool, err error) (retryStep, time.Duration, error) {
	if apiCode(err) == 429 {
		r.rateLimited++
	} else {
		r.rateLimited = 0
	}
	if r.rateLimited >= persistentRateLimit && !r.offered && !hookModel {
		r.offered = true
		why := fmt.Sprintf("%s is rate-limited: %d requests in a row were refused (%s)", model, r.rateLimited, apiStatus(err))
		switched, ferr := r.fallBack(model, why, err)
		if ferr != nil {
			return retryGiveUp, 0, ferr
		}
		if switched {
			r.backoff.reset()
			r.cutOffs, r.rateLimited = 0, 0
			return retrySwitched, 0, err
		}
	}
	wait, retry := r.backoff.next(err)
	if !retry {
		return retryGiveUp, 0, err
	}
	return retryAfterWait, wait, err
}
