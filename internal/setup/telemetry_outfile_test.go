package setup

import (
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/telemetry"
)

// A trusted repository names where telemetry is appended (issue 94):
// its .gemini/settings.json, its .env (GEMINI_TELEMETRY_OUTFILE) or the
// editor's settings for it. Appended JSON lines carry the prompts and
// answers, which a shell reading ~/.bashrc or a hook would expand
// ("$(…)" in a quoted string): a path from the workspace is taken only
// inside the workspace's roots, its links resolved, and never a
// protected file; otherwise telemetry is off, saying why, and nothing
// is written. The user's own settings and environment choose freely.
func TestTelemetryOutfileFromTheWorkspaceStaysInsideIt(t *testing.T) {
	const bashrc = "# the user's\n"
	type place int
	const (
		projectSettings place = iota
		projectEnv
		userSettings
	)
	for _, tc := range []struct {
		name    string
		from    place
		outfile func(e *telemetryEnv) string
		setup   func(t *testing.T, e *telemetryEnv)
		refused string // in the warning; "" when the outfile is written
		written func(e *telemetryEnv) string
	}{
		{name: "the user's .bashrc, from the project's settings", from: projectSettings,
			outfile: func(e *telemetryEnv) string { return filepath.Join(e.home, ".bashrc") }, refused: "outside the workspace"},
		{name: "the user's settings, from the project's settings", from: projectSettings,
			outfile: func(e *telemetryEnv) string { return filepath.Join(e.home, ".gemini", "settings.json") }, refused: "outside the workspace"},
		{name: "a relative path leading out", from: projectSettings,
			outfile: func(e *telemetryEnv) string { return "../" + filepath.Base(e.home) + "/.bashrc" }, refused: "outside the workspace"},
		{name: "a git hook of the project", from: projectSettings,
			outfile: func(*telemetryEnv) string { return ".git/hooks/pre-commit" }, refused: "protected"},
		{name: "a link in the project to .bashrc", from: projectSettings,
			outfile: func(*telemetryEnv) string { return "telemetry.log" },
			setup: func(t *testing.T, e *telemetryEnv) {
				platformtest.Symlink(t, filepath.Join(e.home, ".bashrc"), filepath.Join(e.root, "telemetry.log"))
			}, refused: "outside the workspace"},
		{name: "a link in the project to its git hooks", from: projectSettings,
			outfile: func(*telemetryEnv) string { return "logs/pre-commit" },
			setup: func(t *testing.T, e *telemetryEnv) {
				platformtest.Symlink(t, filepath.Join(".git", "hooks"), filepath.Join(e.root, "logs"))
			}, refused: "protected"},
		{name: "the user's .bashrc, from the project's .env", from: projectEnv,
			outfile: func(e *telemetryEnv) string { return filepath.Join(e.home, ".bashrc") }, refused: "outside the workspace"},
		{name: "the project's own log file", from: projectSettings,
			outfile: func(*telemetryEnv) string { return "telemetry.log" },
			written: func(e *telemetryEnv) string { return filepath.Join(e.root, "telemetry.log") }},
		{name: "the project's own log file, from its .env", from: projectEnv,
			outfile: func(*telemetryEnv) string { return "logs/telemetry.log" },
			setup: func(t *testing.T, e *telemetryEnv) {
				if err := os.Mkdir(filepath.Join(e.root, "logs"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			written: func(e *telemetryEnv) string { return filepath.Join(e.root, "logs", "telemetry.log") }},
		{name: "the user's choice outside the project", from: userSettings,
			outfile: func(e *telemetryEnv) string { return filepath.Join(e.home, "telemetry.log") },
			written: func(e *telemetryEnv) string { return filepath.Join(e.home, "telemetry.log") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTelemetryEnv(t, `{"telemetry": {"enabled": true}}`)
			e.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
			writeFile(t, filepath.Join(e.home, ".bashrc"), bashrc)
			writeFile(t, filepath.Join(e.root, ".git", "hooks", "pre-commit"), "#!/bin/sh\n")
			if tc.setup != nil {
				tc.setup(t, e)
			}
			outfile := tc.outfile(e)
			switch tc.from {
			case projectSettings:
				writeFile(t, filepath.Join(e.root, ".gemini", "settings.json"), `{"telemetry": {"outfile": `+quote(outfile)+`}}`)
			case projectEnv:
				writeFile(t, filepath.Join(e.root, ".env"), "GEMINI_TELEMETRY_OUTFILE="+outfile+"\n")
			case userSettings:
				writeFile(t, filepath.Join(e.home, ".gemini", "settings.json"),
					`{"model": {"name": "gemini-2.5-flash"}, "telemetry": {"enabled": true, "outfile": `+quote(outfile)+`}}`)
			}
			b := e.build(t)
			_, off := b.telemetry.(telemetry.Nop)
			b.Close()

			if got := readFileString(t, filepath.Join(e.home, ".bashrc")); got != bashrc {
				t.Errorf(".bashrc was appended to:\n%s", got)
			}
			if got := readFileString(t, filepath.Join(e.root, ".git", "hooks", "pre-commit")); got != "#!/bin/sh\n" {
				t.Errorf("the hook was appended to:\n%s", got)
			}
			if tc.refused != "" {
				if !off || len(e.warnings) != 1 || !strings.Contains(e.warnings[0], "telemetry is off") ||
					!strings.Contains(e.warnings[0], tc.refused) || !strings.Contains(e.warnings[0], "~/.gemini/settings.json") {
					t.Errorf("telemetry %T, warnings %q: want it off, saying the outfile is %s and where the user may set it", b.telemetry, e.warnings, tc.refused)
				}
				return
			}
			if off || len(e.warnings) != 0 {
				t.Errorf("telemetry %T, warnings %q: want it on", b.telemetry, e.warnings)
			}
			if got := readFileString(t, tc.written(e)); !strings.Contains(got, "gemini_cli.config") {
				t.Errorf("the outfile holds %q", got)
			}
		})
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

func readFileString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
