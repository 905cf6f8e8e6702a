package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
)

// The hidden subcommand reaches the supervisor, which outside a sandbox
// refuses to run.
func TestSandboxSupervisorSubcommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{sandbox.SupervisorArg}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "supervisor") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
