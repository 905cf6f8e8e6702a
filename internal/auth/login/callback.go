package login

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// outcome is how the sign-in ended at the loopback server.
type outcome struct {
	res Result
	err error
}

// callback is the loopback server's handler: it takes the first answer
// on callbackPath and ends the sign-in with it, sending the browser to
// Gemini CLI's success or failure page.
type callback struct {
	attempt *attempt
	ctx     context.Context // the sign-in's: the exchange ends with it
	once    sync.Once
	done    chan outcome
}

func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		// A favicon, a port scanner: not the answer awaited.
		http.NotFound(w, r)
		return
	}
	answered := false
	cb.once.Do(func() {
		answered = true
		res, err := cb.answer(r)
		switch {
		case errors.Is(err, ErrStateMismatch):
			http.Error(w, "State mismatch. Possible CSRF attack", http.StatusBadRequest)
		case err != nil:
			http.Redirect(w, r, FailureURL, http.StatusMovedPermanently)
		default:
			http.Redirect(w, r, SuccessURL, http.StatusMovedPermanently)
		}
		cb.done <- outcome{res, err}
	})
	if !answered {
		http.Error(w, "The sign-in has already ended.", http.StatusGone)
	}
}

// answer is what the redirect carries: Google's error, or the code,
// redeemed when the state is the one sent.
func (cb *callback) answer(r *http.Request) (Result, error) {
	q := r.URL.Query()
	if code := q.Get("error"); code != "" {
		desc := q.Get("error_description")
		if desc == "" {
			desc = "No additional details provided"
		}
		return Result{}, fmt.Errorf("Google OAuth error: %s. %s", code, desc)
	}
	if q.Get("state") != cb.attempt.state {
		return Result{}, ErrStateMismatch
	}
	code := q.Get("code")
	if code == "" {
		return Result{}, errors.New("No authorization code received from Google OAuth. Please try authenticating again.")
	}
	return cb.attempt.redeem(cb.ctx, code)
}
