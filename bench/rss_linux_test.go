package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
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

// cpuTime is the CPU time the process has used so far, user and system:
// utime and stime of /proc/PID/stat, in clock ticks of 10 ms (USER_HZ).
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time: %w", err)
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	fields := strings.Fields(rest) // from field 3, state
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] { // fields 14 and 15: utime, stime
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
