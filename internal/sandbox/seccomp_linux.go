package sandbox

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// seccompFile is the filter in a sealed memory file, held for the
// sandbox's life and handed to each bwrap (trampoline).
func seccompFile(allowUnix bool) (*os.File, error) {
	prog, err := seccompFilter(runtime.GOARCH, allowUnix)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("gemini-ls-seccomp", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("making the seccomp filter's memory file: %w", err)
	}
	f := os.NewFile(uintptr(fd), "gemini-ls-seccomp")
	if _, err := f.Write(prog); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the seccomp filter: %w", err)
	}
	// Sealed, so that nothing holding it can change the filter.
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the seccomp filter: %w", err)
	}
	return f, nil
}
