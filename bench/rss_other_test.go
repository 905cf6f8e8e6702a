//go:build !linux

package bench

import "errors"

// peakRSS is read from /proc, on Linux only.
func peakRSS(int) (int64, bool, error) { return 0, false, nil }

// currentRSS is read from /proc, on Linux only.
func currentRSS(int) (int64, error) { return 0, errors.New("RSS is read from /proc, on Linux only") }
