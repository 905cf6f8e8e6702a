// Command rusage runs a command and writes its resource use, as the kernel
// accounted it at its end, as one JSON line to the file named by its first
// argument: {"exit": N, "user_ns": N, "sys_ns": N, "maxrss_kb": N}.
//
//	rusage OUT COMMAND [ARG...]
//
// The benchmarks run a measured program through it, as /usr/bin/time would,
// because a process a Go program starts directly reports the wrong peak RSS:
// Go starts children with a clone that shares its memory until the exec,
// and Linux charges that memory's high-water mark to the child's ru_maxrss
// (fs/exec.c, exec_mmap). Started from this small program instead, the
// command's figure is its own, or this program's few MiB if larger.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rusage OUT COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	line, _ := json.Marshal(map[string]int64{
		"exit":      int64(cmd.ProcessState.ExitCode()),
		"user_ns":   ru.Utime.Nano(),
		"sys_ns":    ru.Stime.Nano(),
		"maxrss_kb": ru.Maxrss,
	})
	if err := os.WriteFile(os.Args[1], append(line, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
