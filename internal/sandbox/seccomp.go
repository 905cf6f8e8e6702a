package sandbox

import (
	"encoding/binary"
	"fmt"
)

// The seccomp filter bubblewrap loads (--seccomp) before it runs the
// command. A read-only bind of / does not stop connect() on a Unix
// socket, and sockets live anywhere ($HOME included: Docker Desktop's
// ~/.docker/desktop/docker.sock), so no mount can hide them all; as
// Claude Code's sandbox does on Linux, the filter refuses to make one:
// socket(AF_UNIX, …) fails with EPERM, unless the user named a socket
// (tools.sandboxAllowedSockets). socketpair, which reaches nothing
// outside, stays allowed. io_uring_setup and its siblings are refused
// too, since io_uring's operations (a socket, a connect) never pass
// through the filter, and ptrace as 0.61's own filter refuses it (before
// Linux 4.8 a tracer could change a syscall the filter had let through).
// A process making syscalls of another architecture (i386's int 0x80,
// whose socketcall multiplexes socket, or x32's numbers) is killed, as
// 0.61's filter kills it: the numbers checked are the native ones.

// seccompArch is what the filter checks on one architecture.
type seccompArch struct {
	audit uint32 // AUDIT_ARCH_*
	// socket and ptrace are the native syscall numbers; io_uring's are
	// the same on every architecture (425, 426, 427).
	socket, ptrace uint32
	// x32 says that syscall numbers with __X32_SYSCALL_BIT set reach the
	// native table with x32's meaning (amd64).
	x32 bool
}

// seccompArchOf is the filter's view of goarch, for the architectures
// gemini-ls has a filter for: those without a socketcall multiplexer of
// their own.
func seccompArchOf(goarch string) (seccompArch, bool) {
	switch goarch {
	case "amd64":
		return seccompArch{audit: 0xC000003E, socket: 41, ptrace: 101, x32: true}, true
	case "arm64":
		return seccompArch{audit: 0xC00000B7, socket: 198, ptrace: 117}, true
	case "riscv64":
		return seccompArch{audit: 0xC00000F3, socket: 198, ptrace: 117}, true
	}
	return seccompArch{}, false
}

// Classic BPF and seccomp constants (linux/filter.h, linux/seccomp.h).
const (
	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	seccompRetKillProcess = 0x80000000
	seccompRetErrno       = 0x00050000
	seccompRetAllow       = 0x7FFF0000
	errnoEPERM            = 1

	afUnix        = 1
	x32SyscallBit = 0x40000000
	ioURingSetup  = 425
	ioURingEnter  = 426
	ioURingReg    = 427

	// Offsets in struct seccomp_data: nr, arch, then args[0] after the
	// 64-bit instruction pointer; its low half first (little-endian).
	offNr    = 0
	offArch  = 4
	offArg0  = 16
	sizeInsn = 8
)

// insn is one BPF instruction whose jumps name labels ("" is the next
// instruction).
type insn struct {
	label  string // this instruction's
	code   uint16
	k      uint32
	jt, jf string
}

// seccompFilter is the filter, as bwrap reads it (struct sock_filter,
// in the machine's byte order), for goarch: allowUnix leaves AF_UNIX
// sockets alone (a socket was named).
func seccompFilter(goarch string, allowUnix bool) ([]byte, error) {
	arch, ok := seccompArchOf(goarch)
	if !ok {
		return nil, fmt.Errorf("the bubblewrap sandbox has no seccomp filter for %s (only amd64, arm64, riscv64), so it cannot keep commands from the host's Unix sockets", goarch)
	}
	prog := []insn{
		{code: bpfLdWAbs, k: offArch},
		{code: bpfJeqK, k: arch.audit, jf: "kill"},
		{code: bpfLdWAbs, k: offNr},
	}
	if arch.x32 {
		prog = append(prog, insn{code: bpfJgeK, k: x32SyscallBit, jt: "kill"})
	}
	for _, nr := range []uint32{ioURingSetup, ioURingEnter, ioURingReg, arch.ptrace} {
		prog = append(prog, insn{code: bpfJeqK, k: nr, jt: "deny"})
	}
	if !allowUnix {
		prog = append(prog,
			insn{code: bpfJeqK, k: arch.socket, jf: "allow"},
			insn{code: bpfLdWAbs, k: offArg0},
			insn{code: bpfJeqK, k: afUnix, jt: "deny"},
		)
	}
	prog = append(prog,
		insn{label: "allow", code: bpfRetK, k: seccompRetAllow},
		insn{label: "deny", code: bpfRetK, k: seccompRetErrno | errnoEPERM},
		insn{label: "kill", code: bpfRetK, k: seccompRetKillProcess},
	)
	return assemble(prog)
}

// assemble resolves prog's labels into forward jumps and encodes it.
func assemble(prog []insn) ([]byte, error) {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	skip := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := at[label]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("seccomp filter: bad jump from %d to %q", from, label)
		}
		return uint8(to - from - 1), nil
	}
	out := make([]byte, 0, len(prog)*sizeInsn)
	for i, in := range prog {
		jt, err := skip(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := skip(i, in.jf)
		if err != nil {
			return nil, err
		}
		out = binary.NativeEndian.AppendUint16(out, in.code)
		out = append(out, jt, jf)
		out = binary.NativeEndian.AppendUint32(out, in.k)
	}
	return out, nil
}
