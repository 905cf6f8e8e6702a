//go:build !linux

package bench

import (
	"errors"
	"time"
)

// peakRSS is read from /proc, on Linux only.
func peakRSS(int) (int64, bool, error) { return 0, false, nil }

// currentRSS is read from /proc, on Linux only.
func currentRSS(int) (int64, error) { return 0, errors.New("RSS is read from /proc, on Linux only") }

// cpuTime is read from /proc, on Linux only.
func cpuTime(int) (time.Duration, error) {
	return 0, errors.New("CPU time is read from /proc, on Linux only")
}
