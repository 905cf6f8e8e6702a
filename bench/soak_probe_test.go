//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// What the soak reads of a running server from outside: /proc for its
// resident memory, threads and open files, and the Go runtime's own
// reports on its stderr (GODEBUG=gctrace=1: the live heap after each
// collection; a SIGQUIT: every goroutine's stack). gemini-ls exposes no
// goroutine count or heap profile of its own, and the soak adds none.

// procSnapshot is a process's resources at one moment.
type procSnapshot struct {
	rss     int64 // VmRSS, bytes
	threads int   // OS threads (Threads:)
	fds     int   // entries of /proc/PID/fd
}

// snapshotProcess reads pid's resident memory, threads and open files.
func snapshotProcess(pid int) (procSnapshot, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procSnapshot{}, fmt.Errorf("reading the server's status: %w", err)
	}
	snap, err := parseStatus(string(status))
	if err != nil {
		return procSnapshot{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return procSnapshot{}, fmt.Errorf("listing the server's open files: %w", err)
	}
	snap.fds = len(fds)
	return snap, nil
}

// parseStatus reads VmRSS and Threads out of /proc/PID/status.
func parseStatus(status string) (procSnapshot, error) {
	var snap procSnapshot
	var haveRSS, haveThreads bool
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return procSnapshot{}, fmt.Errorf("parsing VmRSS %q: %w", v, err)
			}
			snap.rss, haveRSS = kb*1024, true
		}
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return procSnapshot{}, fmt.Errorf("parsing Threads %q: %w", v, err)
			}
			snap.threads, haveThreads = n, true
		}
	}
	if !haveRSS || !haveThreads {
		return procSnapshot{}, fmt.Errorf("no VmRSS or no Threads line")
	}
	return snap, nil
}

// heapTrace follows a server's stderr for the runtime's gctrace lines
// (GODEBUG=gctrace=1) and keeps the live heap the last one reported.
type heapTrace struct {
	path    string
	offset  int64
	partial []byte // a line not yet ended
	live    int64  // bytes marked live by the last collection; -1 before one
	gcs     int    // collections seen
}

func newHeapTrace(stderrPath string) *heapTrace { return &heapTrace{path: stderrPath, live: -1} }

// update reads what the server wrote to stderr since the last update.
func (h *heapTrace) update() error {
	f, err := os.Open(h.path)
	if err != nil {
		return fmt.Errorf("opening the server's stderr: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(h.offset, io.SeekStart); err != nil {
		return fmt.Errorf("seeking in the server's stderr: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("reading the server's stderr: %w", err)
	}
	h.offset += int64(len(data))
	h.feed(data)
	return nil
}

// feed takes in stderr's next bytes.
func (h *heapTrace) feed(data []byte) {
	data = append(h.partial, data...)
	end := bytes.LastIndexByte(data, '\n')
	h.partial = slices.Clone(data[end+1:])
	for line := range strings.SplitSeq(string(data[:end+1]), "\n") {
		if live, ok := liveHeapOf(line); ok {
			h.live = live
			h.gcs++
		}
	}
}

// gcLine matches a gctrace line's heap sizes: "gc 12 @3.1s 1%: …, 4->4->2
// MB, 5 MB goal, …": heap at the start, at the end, and marked live.
var gcLine = regexp.MustCompile(`^gc \d+ @.* (\d+)->(\d+)->(\d+) MB,`)

// liveHeapOf is the live heap a gctrace line reports, in bytes.
func liveHeapOf(line string) (int64, bool) {
	m := gcLine.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	mb, err := strconv.ParseInt(m[3], 10, 64)
	if err != nil {
		return 0, false
	}
	return mb << 20, true
}

// goroutineDump is what a Go process's SIGQUIT stack dump says of its
// goroutines: how many, and how many each function started.
type goroutineDump struct {
	total     int
	byCreator map[string]int // "created by" function; "(main)" for none
}

// goroutineHeader is a goroutine's first line in a dump: "goroutine 7
// gp=0xc0001 m=nil [select, 2 minutes]:" or, in older formats,
// "goroutine 7 [select]:".
var goroutineHeader = regexp.MustCompile(`^goroutine (\d+) .*\[.*\]:$`)

// parseGoroutineDump reads the dump a SIGQUIT printed (the whole stderr;
// what comes before "SIGQUIT: quit" is ignored). Goroutine 0, the signal
// handler's own stack, is not counted.
func parseGoroutineDump(stderr string) goroutineDump {
	if i := strings.LastIndex(stderr, "SIGQUIT: quit"); i >= 0 {
		stderr = stderr[i:]
	}
	d := goroutineDump{byCreator: map[string]int{}}
	creator := ""
	inGoroutine := false
	flush := func() {
		if inGoroutine {
			d.total++
			d.byCreator[cmp.Or(creator, "(main)")]++
		}
		inGoroutine, creator = false, ""
	}
	sc := bufio.NewScanner(strings.NewReader(stderr))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := goroutineHeader.FindStringSubmatch(line); m != nil {
			flush()
			inGoroutine = m[1] != "0"
			continue
		}
		if c, ok := strings.CutPrefix(line, "created by "); ok && inGoroutine {
			c, _, _ = strings.Cut(c, " in goroutine ")
			creator = c
		}
	}
	flush()
	return d
}

// creatorDiff is one function's goroutines in two dumps.
type creatorDiff struct {
	creator     string
	after, base int
}

// grownCreators are the functions with more goroutines in after than in
// base, most grown first.
func grownCreators(after, base goroutineDump) []creatorDiff {
	var out []creatorDiff
	for c, n := range after.byCreator {
		if n > base.byCreator[c] {
			out = append(out, creatorDiff{c, n, base.byCreator[c]})
		}
	}
	slices.SortFunc(out, func(a, b creatorDiff) int {
		return cmp.Or(cmp.Compare(b.after-b.base, a.after-a.base), strings.Compare(a.creator, b.creator))
	})
	return out
}

// soakSample is one row of the soak's table: the server after done
// prompts (or sessions).
type soakSample struct {
	done    int
	session int // the session running (LSP) or sessions closed (ACP)
	procSnapshot
	heap int64 // live heap after the last collection, bytes; -1 unknown
	// each is the median wall time of the prompts (sessions) since the
	// last sample, the fake model's time taken out; cpu the server's CPU
	// time over them, per prompt (session).
	each, cpu time.Duration
	// files are the open files by kind (openFiles).
	files map[string]int
}

// growth is how much metric grew from the sample at base to the last:
// last / base.
func growth(samples []soakSample, base int, metric func(soakSample) float64) float64 {
	b := metric(samples[base])
	if b == 0 {
		return 0
	}
	return metric(samples[len(samples)-1]) / b
}

// flatWithin is the verdict: the last sample within 10% of the
// base one.
func flatWithin(ratio float64) string {
	if ratio <= 1.10 {
		return "flat"
	}
	return fmt.Sprintf("GREW %.0f%%", (ratio-1)*100)
}

// soakTable formats samples as the table docs/benchmarks.md records;
// unit names what done counts.
func soakTable(unit string, samples []soakSample) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "| %s | session | RSS MB | live heap MB | fds | threads | %s ms (median) | CPU/%s ms |\n", unit, strings.TrimSuffix(unit, "s"), strings.TrimSuffix(unit, "s"))
	sb.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range samples {
		heap := "?"
		if s.heap >= 0 {
			heap = fmt.Sprintf("%.0f", mb(s.heap))
		}
		each, cpu := "", ""
		if s.each > 0 {
			each, cpu = fmt.Sprintf("%.1f", ms(s.each)), fmt.Sprintf("%.1f", ms(s.cpu))
		}
		fmt.Fprintf(&sb, "| %d | %d | %.1f | %s | %d | %d | %s | %s |\n", s.done, s.session, mb(s.rss), heap, s.fds, s.threads, each, cpu)
	}
	return sb.String()
}

// openFiles counts pid's open files by what they are: a path, or the kind
// of a pipe, socket or anonymous inode ("pipe", "socket",
// "anon_inode:[eventpoll]"), so two listings can say what was left open.
func openFiles(pid int) (map[string]int, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing the server's open files: %w", err)
	}
	out := map[string]int{}
	for _, e := range entries {
		target, err := os.Readlink(dir + "/" + e.Name())
		if err != nil {
			continue // closed meanwhile
		}
		out[fileKind(target)]++
	}
	return out, nil
}

// fileKind is an fd's link target without the inode number that makes
// each pipe and socket different: "pipe:[4711]" is "pipe".
func fileKind(target string) string {
	if kind, rest, ok := strings.Cut(target, ":["); ok && !strings.Contains(kind, "/") && strings.HasSuffix(rest, "]") {
		if kind == "anon_inode" {
			return target
		}
		return kind
	}
	return target
}

// grownFiles lists the kinds of file open more often in after than in
// before: "pipe +2 (3 → 5)".
func grownFiles(after, before map[string]int) []string {
	var out []string
	for kind, n := range after {
		if n > before[kind] {
			out = append(out, fmt.Sprintf("%s +%d (%d → %d)", kind, n-before[kind], before[kind], n))
		}
	}
	slices.Sort(out)
	return out
}
