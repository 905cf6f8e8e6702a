package startup

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func releaseCodePages() {
	if traced() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	for _, m := range codeMappings(exe) {
		// MADV_DONTNEED on a private file mapping drops this process's
		// page table entries; the next access maps the file's page again.
		syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED)
	}
}

// mapping is an address range of this process.
type mapping struct{ start, end uintptr }

// codeMappings are the executable (r-xp) mappings of the file exe, as
// /proc/self/maps lists them.
func codeMappings(exe string) []mapping {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-01174000 r-xp 00000000 08:01 1234 /path/to/gemini-ls
		fields := strings.Fields(sc.Text())
		if len(fields) != 6 || fields[1] != "r-xp" || fields[5] != exe {
			continue
		}
		lo, hi, _ := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && start < end {
			out = append(out, mapping{uintptr(start), uintptr(end)})
		}
	}
	return out
}

// traced reports whether a tracer (a debugger) is attached to this
// process.
func traced() bool {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true // unknown: keep the pages
	}
	for line := range bytes.Lines(status) {
		if pid, ok := bytes.CutPrefix(line, []byte("TracerPid:")); ok {
			return string(bytes.TrimSpace(pid)) != "0"
		}
	}
	return false
}
