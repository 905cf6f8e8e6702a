package main

import (
	"context"
	"io"
	"sync"
)

// watchedOutput is a headless run's stdout: the first write that fails
// stops the run, as nothing is left to read its answer. A reader that
// went away (`gemini-ls run | head`: EPIPE) is how Gemini CLI 0.61's
// run ends too, with status 0 and nothing said; any other failure (a
// full disk) is said on stderr, and the run fails. Either way the turn
// is cancelled, so its commands are killed and its session is saved,
// rather than the process killed by SIGPIPE at whatever it was doing.
type watchedOutput struct {
	w    io.Writer
	stop context.CancelFunc

	mu  sync.Mutex
	err error // the first failure
}

func (o *watchedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
		o.stop()
	}
	return n, err
}

// failed is the first write's failure, nil while every write succeeded.
func (o *watchedOutput) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}
