//go:build !windows

package osshell

import "os/exec"

// verbatim does nothing: only Windows passes a command line rather than
// arguments.
func verbatim(*exec.Cmd, Shell, string) {}
