package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// peakRSS is the process's peak resident set size so far: VmHWM from
// /proc/PID/status, read while it still runs.
//
// Not getrusage's ru_maxrss after Wait: Go starts children with
// CLONE_VM|CLONE_VFORK, and exec carries the high-water mark of the
// memory it replaces (the parent's: this benchmark process) into the
// child's maxrss, so ru_maxrss is at least the benchmark's own RSS.
func peakRSS(pid int) (bytes int64, ok bool, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false, fmt.Errorf("reading peak RSS: %w", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		value, found := strings.CutPrefix(line, "VmHWM:")
		if !found {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "kB")), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("parsing VmHWM %q: %w", value, err)
		}
		return kb * 1024, true, nil
	}
	return 0, false, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// currentRSS is the process's resident set size now: VmRSS from
// /proc/PID/status.
func currentRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading RSS: %w", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if value, found := strings.CutPrefix(line, "VmRSS:"); found {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parsing VmRSS %q: %w", value, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
