package sandbox

import (
	"encoding/binary"
	"testing"
)

// The filter checks the architecture first, kills x32's and foreign
// syscalls, refuses io_uring and ptrace, and refuses socket(AF_UNIX)
// only when no socket is named; each jump lands inside the program.
func TestSeccompFilter(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64", "riscv64"} {
		strict, err := seccompFilter(goarch, false)
		if err != nil {
			t.Fatal(err)
		}
		open, err := seccompFilter(goarch, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(strict)%sizeInsn != 0 || len(open) >= len(strict) {
			t.Errorf("%s: %d and %d bytes", goarch, len(strict), len(open))
		}
		arch, _ := seccompArchOf(goarch)
		if got := evalFilter(strict, arch.audit, arch.socket, afUnix); got != seccompRetErrno|errnoEPERM {
			t.Errorf("%s: socket(AF_UNIX) = %#x", goarch, got)
		}
		if got := evalFilter(open, arch.audit, arch.socket, afUnix); got != seccompRetAllow {
			t.Errorf("%s, a socket named: socket(AF_UNIX) = %#x", goarch, got)
		}
		for _, c := range []struct {
			nr, arg0, want uint32
			audit          uint32
		}{
			{arch.socket, 2, seccompRetAllow, arch.audit}, // AF_INET
			{ioURingSetup, 0, seccompRetErrno | errnoEPERM, arch.audit},
			{arch.ptrace, 0, seccompRetErrno | errnoEPERM, arch.audit},
			{arch.socket, afUnix, seccompRetKillProcess, 0x40000003}, // i386
			{0, 0, seccompRetAllow, arch.audit},
		} {
			if got := evalFilter(strict, c.audit, c.nr, c.arg0); got != c.want {
				t.Errorf("%s: nr %d arg %d arch %#x = %#x, want %#x", goarch, c.nr, c.arg0, c.audit, got, c.want)
			}
		}
	}
	amd64, _ := seccompArchOf("amd64")
	if got := evalFilter(mustFilter(t, "amd64"), amd64.audit, x32SyscallBit|amd64.socket, afUnix); got != seccompRetKillProcess {
		t.Errorf("x32 socket = %#x", got)
	}
	if _, err := seccompFilter("s390x", false); err == nil {
		t.Error("s390x, which has socketcall: no error")
	}
}

func mustFilter(t *testing.T, goarch string) []byte {
	prog, err := seccompFilter(goarch, false)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// evalFilter runs prog, as the kernel would, on a syscall nr of the
// architecture audit with arg0 as its first argument.
func evalFilter(prog []byte, audit, nr, arg0 uint32) uint32 {
	var acc uint32
	for pc := 0; pc*sizeInsn < len(prog); pc++ {
		b := prog[pc*sizeInsn:]
		code := binary.NativeEndian.Uint16(b)
		jt, jf := int(b[2]), int(b[3])
		k := binary.NativeEndian.Uint32(b[4:])
		switch code {
		case bpfLdWAbs:
			acc = map[uint32]uint32{offNr: nr, offArch: audit, offArg0: arg0}[k]
		case bpfJeqK, bpfJgeK:
			if code == bpfJeqK && acc == k || code == bpfJgeK && acc >= k {
				pc += jt
			} else {
				pc += jf
			}
		case bpfRetK:
			return k
		default:
			panic("unknown instruction")
		}
	}
	panic("the filter fell off its end")
}
