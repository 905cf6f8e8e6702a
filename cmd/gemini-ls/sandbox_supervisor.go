package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
)

// superviseSandbox is the hidden subcommand (sandbox.SupervisorArg) that
// gemini-ls runs inside its own persistent sandbox, bubblewrap or a
// container (args say which): the binary is at hand, the same version as
// its host by construction, and needs no install of its own. In a
// container the protocol is on stdin and stdout; under bubblewrap, whose
// init keeps stdin and stdout where a command could open them, on the
// descriptors gemini-ls passed, which Supervise opens itself.
func superviseSandbox(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := sandbox.Supervise(ctx, stdin, stdout, args...); err != nil {
		fmt.Fprintln(stderr, "gemini-ls:", err)
		return 1
	}
	return 0
}

// sandboxSupervisor is how a sandbox starts its persistent supervisor:
// this binary and the hidden subcommand. nil when the binary cannot be
// found again, and each sandboxed command then gets a sandbox of its own,
// as before.
func sandboxSupervisor() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, sandbox.SupervisorArg}
}
