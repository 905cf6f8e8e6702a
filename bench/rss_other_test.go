//go:build !linux

package bench

// peakRSS is read from /proc, on Linux only.
func peakRSS(int) (int64, bool, error) { return 0, false, nil }
