//go:build !windows

package osshell

import "github.com/gemini-ls/gemini-ls/internal/spawn"

// verbatim does nothing: only Windows passes a command line rather than
// arguments.
func verbatim(*spawn.Cmd, Shell, string) {}
