//go:build !unix

package safefile

import "context"

// LockDir does not lock where flock(2) is missing: writers rely on
// WriteIf's check alone.
func LockDir(ctx context.Context, dir string) (unlock func(), err error) {
	return func() {}, ctx.Err()
}
