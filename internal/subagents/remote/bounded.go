package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ErrTooLarge is a response larger than its bound (Options.MaxCardBytes,
// Options.MaxResponseBytes).
var ErrTooLarge = errors.New("response too large")

// ErrSilent is a server that sent nothing for longer than
// Options.IdleTimeout: no response headers, or no byte of a body.
var ErrSilent = errors.New("the server sent nothing")

// budget is how many response bytes the requests of one card fetch or one
// run may still read; the requests carry it in their context. It keeps the
// first bound broken, since the SDK may report only what followed (a
// stream's last line cut short does not parse).
type budget struct {
	left  atomic.Int64
	limit int64
	what  string // "the agent card", "the remote agent's responses"
	err   atomic.Pointer[error]
}

// fail records err as the bound broken, unless one was, and returns it.
func (b *budget) fail(err error) error {
	if b != nil {
		b.err.CompareAndSwap(nil, &err)
	}
	return err
}

// broken is the first bound broken; nil if none.
func (b *budget) broken() error {
	if p := b.err.Load(); p != nil {
		return *p
	}
	return nil
}

func newBudget(limit int64, what string) *budget {
	b := &budget{limit: limit, what: what}
	b.left.Store(limit)
	return b
}

type budgetKey struct{}

func withBudget(ctx context.Context, b *budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// bounded wraps base: each response must come within idle, each body must
// go on arriving with no silence longer than idle, and the bodies of the
// requests that share a budget (their context's) read no more than it.
type bounded struct {
	base http.RoundTripper
	idle time.Duration
}

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	bud, _ := req.Context().Value(budgetKey{}).(*budget)
	ctx, cancel := context.WithCancel(req.Context())
	var silent atomic.Bool
	timer := time.AfterFunc(b.idle, func() { silent.Store(true); cancel() })
	resp, err := b.base.RoundTrip(req.WithContext(ctx))
	timer.Stop()
	if err != nil {
		cancel()
		if silent.Load() {
			return nil, bud.fail(fmt.Errorf("%w for %v waiting for the response to %s", ErrSilent, b.idle, req.URL.Redacted()))
		}
		return nil, err
	}
	resp.Body = newBoundedBody(resp.Body, cancel, b.idle, bud, req.URL.Redacted())
	return resp, nil
}

// boundedBody is a response body under an idle timer and a budget; the
// timer ends the request's context (cancel), which ends a read that waits.
type boundedBody struct {
	body   io.ReadCloser
	cancel context.CancelFunc
	idle   time.Duration
	budget *budget // nil: unbounded
	silent atomic.Bool
	timer  *time.Timer
	url    string

	closeOnce sync.Once
}

func newBoundedBody(body io.ReadCloser, cancel context.CancelFunc, idle time.Duration, bud *budget, url string) *boundedBody {
	b := &boundedBody{body: body, cancel: cancel, idle: idle, budget: bud, url: url}
	// Armed only while a Read waits.
	b.timer = time.AfterFunc(math.MaxInt64, func() { b.silent.Store(true); cancel() })
	b.timer.Stop()
	return b
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.budget != nil {
		left := b.budget.left.Load()
		if left < 0 {
			return 0, b.budget.fail(fmt.Errorf("%w: %s exceed %d bytes", ErrTooLarge, b.budget.what, b.budget.limit))
		}
	}
	b.timer.Reset(b.idle)
	n, err := b.body.Read(p)
	b.timer.Stop()
	if b.budget != nil && b.budget.left.Add(-int64(n)) < 0 {
		return 0, b.budget.fail(fmt.Errorf("%w: %s exceed %d bytes", ErrTooLarge, b.budget.what, b.budget.limit))
	}
	if err != nil && err != io.EOF && b.silent.Load() {
		return n, b.budget.fail(fmt.Errorf("%w for %v in the middle of the response from %s", ErrSilent, b.idle, b.url))
	}
	return n, err
}

func (b *boundedBody) Close() error {
	var err error
	b.closeOnce.Do(func() {
		b.timer.Stop()
		err = b.body.Close()
		b.cancel()
	})
	return err
}
