package sandbox

import (
	"encoding/binary"
	"io"
	"os"
)

// staticExecutable says whether the file at path is an ELF executable
// naming no program interpreter (no PT_INTERP program header): one that
// runs in a container of any image, as gemini-ls built without cgo does
// (make dist's, CGO_ENABLED=0 go install's). A cgo build (go install
// where a C compiler is) needs the host's dynamic loader and C library,
// which an image may lack (Alpine's musl, a distroless image) or hold in
// an older version; the container then ends at once ("failed to exec
// pid1"). A file that cannot be read, or is not a well-formed ELF file,
// is not static.
func staticExecutable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	// The ELF header: 52 bytes for 32-bit files, 64 for 64-bit ones.
	var h [64]byte
	n, _ := io.ReadFull(f, h[:])
	if n < 52 || string(h[:4]) != "\x7fELF" {
		return false
	}
	var order binary.ByteOrder
	switch h[5] {
	case 1:
		order = binary.LittleEndian
	case 2:
		order = binary.BigEndian
	default:
		return false
	}
	// Where the program headers lie, how large each is and how many.
	var phoff int64
	var phentsize, phnum uint16
	switch {
	case h[4] == 1: // ELFCLASS32
		phoff = int64(order.Uint32(h[28:]))
		phentsize, phnum = order.Uint16(h[42:]), order.Uint16(h[44:])
	case h[4] == 2 && n == 64: // ELFCLASS64
		phoff = int64(order.Uint64(h[32:]))
		phentsize, phnum = order.Uint16(h[54:]), order.Uint16(h[56:])
	default:
		return false
	}
	// 0xffff (PN_XNUM) puts the count elsewhere: not worth following;
	// nor are more than 1 MiB of program headers (no linker makes them).
	if phnum == 0xffff || phentsize < 4 || phoff <= 0 || int(phentsize)*int(phnum) > 1<<20 {
		return false
	}
	headers := make([]byte, int(phentsize)*int(phnum))
	if _, err := f.ReadAt(headers, phoff); err != nil {
		return false
	}
	const ptInterp = 3
	for i := 0; i < len(headers); i += int(phentsize) {
		if order.Uint32(headers[i:]) == ptInterp {
			return false
		}
	}
	return true
}
