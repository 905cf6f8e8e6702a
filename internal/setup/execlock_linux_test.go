package setup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// A build's sandbox locks the programs the build's policy denies
// outright, though the policy is loaded after the sandbox is made.
func TestBuildSandboxLocksThePolicysDeniedPrograms(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	w := newAdminWorld(t, `{"tools": {"sandbox": "bwrap"}}`)
	writeFile(t, filepath.Join(w.home, ".gemini", "policies", "deny.toml"), `
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
`)
	b, err := Build(context.Background(), w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if d := b.Sandbox.Describe(); !strings.HasSuffix(d, "denied programs refused at exec: rm") {
		t.Errorf("the sandbox does not lock rm: %q (warnings %q)", d, w.warnings)
	}
}
