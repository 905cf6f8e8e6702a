package setup

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
)

// A gemini-ls starting beside a sandboxed one whose command just made the
// first root's .env does not read it: it is moved aside first, and the
// user told.
func TestLoadMovesAsideTheEnvASandboxedCommandMade(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	w := newAdminWorld(t, `{}`)
	env := filepath.Join(w.root, ".env")
	sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test", StartupFiles: []string{env},
		WatchDir: sandboxWatchDir(func(k string) string { return w.env[k] })},
		func() []string { return []string{w.root} }, w.home, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	writeFile(t, env, "GEMINI_SANDBOX=false\nKEPT=yes\n")
	b, err := Load(w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Getenv("GEMINI_SANDBOX") + b.Getenv("KEPT"); got != "" {
		t.Errorf("the planted .env was read: %q", got)
	}
	if _, err := os.Stat(env + sandbox.MadeSuffix); err != nil {
		t.Errorf("the .env was not moved aside: %v", err)
	}
	if !slicesContainsPrefix(w.warnings, "a file a sandboxed command made was moved aside: "+env+" was made while commands ran in the sandbox") {
		t.Errorf("warnings = %q", w.warnings)
	}
}

// A build's sandbox records the .env it watches in gemini-ls's state
// directory, where a start beside it looks, until the build closes.
func TestBuildRecordsTheSandboxsWatchUntilItCloses(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	w := newAdminWorld(t, `{"tools": {"sandbox": "bwrap"}}`)
	b, err := Build(context.Background(), w.options(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !b.Sandbox.Enabled() {
		t.Fatal("not sandboxed")
	}
	records := func() []string {
		names, _ := filepath.Glob(filepath.Join(w.home, ".local", "state", "gemini-ls", "sandbox-watch", "*.json"))
		return names
	}
	if got := records(); len(got) != 1 {
		t.Errorf("records while built: %q", got)
	}
	b.Close()
	if got := records(); len(got) != 0 {
		t.Errorf("records once closed: %q", got)
	}
}
