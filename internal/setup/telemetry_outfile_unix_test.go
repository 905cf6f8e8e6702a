//go:build unix

package setup

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// A repository whose settings name a FIFO it holds as the outfile would
// hold gemini-ls's start-up until something read the pipe: refused.
func TestTelemetryOutfileFromTheWorkspaceIsARegularFile(t *testing.T) {
	e := newTelemetryEnv(t, `{"telemetry": {"enabled": true}}`)
	e.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if err := syscall.Mkfifo(filepath.Join(e.root, "telemetry.log"), 0o644); err != nil {
		t.Skip(err)
	}
	writeFile(t, filepath.Join(e.root, ".gemini", "settings.json"), `{"telemetry": {"outfile": "telemetry.log"}}`)
	b := e.build(t)
	defer b.Close()
	if _, off := b.telemetry.(telemetry.Nop); !off || len(e.warnings) != 1 || !strings.Contains(e.warnings[0], "a named pipe (FIFO), not a regular file") {
		t.Errorf("telemetry %T, warnings %q: want it off, saying the outfile is a FIFO", b.telemetry, e.warnings)
	}
}
