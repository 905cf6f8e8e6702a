package startup

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

func releaseExecutablePages() {
	if traced() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	for _, m := range executableMappings(exe, !positionIndependent(exe)) {
		// MADV_DONTNEED on a private file mapping drops this process's
		// page table entries; the next access maps the file's page again.
		syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED)
	}
}

// mapping is an address range of this process.
type mapping struct{ start, end uintptr }

// executableMappings are the code (r-xp) mappings of the file exe, as
// /proc/self/maps lists them, and with readOnly its read-only data's
// (r--p: type descriptors, strings, the function tables), which start-up
// touches as widely as code.
func executableMappings(exe string, readOnly bool) []mapping {
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
		if len(fields) != 6 || fields[5] != exe || !(fields[1] == "r-xp" || readOnly && fields[1] == "r--p") {
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

// positionIndependent reports whether exe is a position-independent
// executable (ELF type ET_DYN, -buildmode=pie), or may be. Its read-only
// data is not all the file's: the loader relocates some of it in place
// (RELRO) before making it read-only, and dropping those pages would map
// back the file's unrelocated bytes.
func positionIndependent(exe string) bool {
	f, err := os.Open(exe)
	if err != nil {
		return true
	}
	defer f.Close()
	var header [18]byte // e_ident (16 bytes), then e_type
	if _, err := io.ReadFull(f, header[:]); err != nil || string(header[:4]) != "\x7fELF" {
		return true
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if header[5] == 2 { // ELFDATA2MSB
		order = binary.BigEndian
	}
	const execType = 2 // ET_EXEC
	return order.Uint16(header[16:]) != execType
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
