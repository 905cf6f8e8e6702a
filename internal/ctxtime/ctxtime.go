// Package ctxtime holds waits that end early with their context: the one
// sleep the retry loop and the Code Assist set-up poll share.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
