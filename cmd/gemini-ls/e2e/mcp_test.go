package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// mgmtWorld is a home and a project directory that gemini-ls and Gemini
// CLI 0.61 both run their management commands in.
type mgmtWorld struct {
	t         *testing.T
	home, dir string
}

// newMgmtWorld makes a home whose trustedFolders.json trusts the project
// when trusted.
func newMgmtWorld(t *testing.T, trusted bool) mgmtWorld {
	t.Helper()
	geminicli.JS(t) // skipped (or failed under CI) without Gemini CLI
	home, dir := t.TempDir(), t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if trusted {
		writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{"`+dir+`": "TRUST_FOLDER"}`)
	}
	return mgmtWorld{t: t, home: home, dir: dir}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is what a command said and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

func runCmd(t *testing.T, cmd *exec.Cmd, stdin string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errOut, strings.NewReader(stdin)
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	return result{out.String(), errOut.String(), code}
}

// ls runs gemini-ls args in the project.
func (w mgmtWorld) ls(args ...string) result {
	w.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = w.dir
	cmd.Env = geminicli.Env(w.home, "")
	return runCmd(w.t, cmd, "")
}

// gemini runs Gemini CLI 0.61's gemini args in the project.
func (w mgmtWorld) gemini(args ...string) result {
	w.t.Helper()
	return runCmd(w.t, geminicli.Command(w.t, w.home, w.dir, "", args...), "")
}

func (w mgmtWorld) read(path string) string {
	w.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

func (w mgmtWorld) projectSettings() string {
	return filepath.Join(w.dir, ".gemini", "settings.json")
}

func (w mgmtWorld) userSettings() string {
	return filepath.Join(w.home, ".gemini", "settings.json")
}

// mcpAdds are mcp add command lines covering every option.
func mcpAdds(server string) [][]string {
	return [][]string{
		{"mcp", "add", "good", server},
		{"mcp", "add", "--trust", "-e", "A=1", "-e", "B=two", "--timeout", "3000", "--description", "with <&> in it", "tooled", server, "-x", "--include-tools", "echo", "ping"},
		{"mcp", "add", "dashed", server, "a", "--", "-y", "--z"},
		{"mcp", "add", "-t", "http", "web", "http://127.0.0.1:9/mcp", "-H", "Authorization: Bearer a:b", "-H", "X-Key:v", "--exclude-tools", "drop"},
		{"mcp", "add", "--type", "sse", "--no-trust", "events", "http://127.0.0.1:9/sse"},
		{"mcp", "add", "-s", "user", "mine", server, "--flag", "value"},
		{"mcp", "add", "good", server, "again"}, // an update
		{"mcp", "add", "--scope", "project", "gone", server},
		{"mcp", "remove", "gone"},
	}
}

// TestMCPAddWritesWhatGeminiCLIWrites: the same mcp add and remove
// command lines, run by gemini-ls in one world and by 0.61 in another,
// leave the same bytes in both settings files, and each tool's messages
// are the other's.
func TestMCPAddWritesWhatGeminiCLIWrites(t *testing.T) {
	t.Parallel()
	ours, theirs := newMgmtWorld(t, true), newMgmtWorld(t, true)
	// One path for both, so that the files can be the same.
	server := filepath.Join(t.TempDir(), "server")
	// A settings file with a comment and a key of its own, as a user's.
	const before = "{\n  // mine\n  \"ui\": {\"theme\": \"Default\"},\n  \"mcpServers\": {\"old\": {\"command\": \"z\"}}\n}\n"
	writeFile(t, ours.projectSettings(), before)
	writeFile(t, theirs.projectSettings(), before)
	for _, args := range mcpAdds(server) {
		got, want := ours.ls(args...), theirs.gemini(args...)
		if got.code != want.code || strings.TrimSpace(got.stderr) != strings.TrimSpace(want.stderr) {
			t.Errorf("%v: gemini-ls said (%d)\n%s\nGemini CLI said (%d)\n%s", args, got.code, got.stderr, want.code, want.stderr)
		}
	}
	for _, f := range []func(mgmtWorld) string{mgmtWorld.projectSettings, mgmtWorld.userSettings} {
		if got, want := ours.read(f(ours)), theirs.read(f(theirs)); got != want {
			t.Errorf("%s:\n%s\nGemini CLI wrote\n%s", f(ours), got, want)
		}
	}
}

// TestMCPAddedByGeminiLSSeenByGeminiCLI: servers gemini-ls adds, 0.61's
// mcp list lists and connects to; and its mcp list output is gemini-ls's,
// line for line, gemini-ls saying besides, under each server that did not
// connect, why.
func TestMCPAddedByGeminiLSSeenByGeminiCLI(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	server := mcpServerBinary(t)
	for _, args := range [][]string{
		{"mcp", "add", "-s", "user", "mine", server},
		{"mcp", "add", "good", server},
		{"mcp", "add", "bad", filepath.Join(t.TempDir(), "missing")},
		{"mcp", "add", "-t", "http", "web", "http://127.0.0.1:9/mcp"},
	} {
		if r := w.ls(args...); r.code != 0 {
			t.Fatalf("%v: %d %s", args, r.code, r.stderr)
		}
	}
	want := "Configured MCP servers:\n\n" +
		"\u2713 mine: " + server + "  (stdio) - Connected\n" +
		"\u2713 good: " + server + "  (stdio) - Connected\n" +
		"\u2717 bad: " + filepath.Dir(filepath.Dir(server)) // checked below, line by line
	theirs := w.gemini("mcp", "list")
	for _, line := range strings.Split(want, "\n")[:4] {
		if !strings.Contains(theirs.stderr, line) {
			t.Errorf("gemini mcp list lacks %q:\n%s", line, theirs.stderr)
		}
	}
	ours := w.ls("mcp", "list")
	if withoutReasons(ours.stderr) != theirs.stderr || ours.code != theirs.code {
		t.Errorf("gemini-ls mcp list said (%d)\n%s\nGemini CLI said (%d)\n%s", ours.code, ours.stderr, theirs.code, theirs.stderr)
	}
	for _, why := range []string{
		" (stdio) - Disconnected\n    connecting: cannot start " + filepath.Dir(filepath.Dir(server)),
		"/mcp (http) - Disconnected\n    connecting: ",
	} {
		if !strings.Contains(ours.stderr, why) {
			t.Errorf("gemini-ls mcp list does not say why a server is disconnected (%q):\n%s", why, ours.stderr)
		}
	}
}

// withoutReasons is mcp list's output without the lines that say why a
// server did not connect, which 0.61 does not say: 0.61's lines.
func withoutReasons(out string) string {
	var kept []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(line, "    ") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

// TestMCPAddedByGeminiCLIListedAndRemovedByGeminiLS: the reverse trip.
func TestMCPAddedByGeminiCLIListedAndRemovedByGeminiLS(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	server := mcpServerBinary(t)
	if r := w.gemini("mcp", "add", "good", server); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := w.ls("mcp", "list"); !strings.Contains(r.stderr, "\u2713 good: "+server+"  (stdio) - Connected") {
		t.Fatalf("gemini-ls mcp list:\n%s", r.stderr)
	}
	if r := w.ls("mcp", "remove", "good"); r.code != 0 || r.stderr != "Server \"good\" removed from project settings.\n" {
		t.Fatalf("gemini-ls mcp remove: %d %s", r.code, r.stderr)
	}
	if r := w.gemini("mcp", "list"); !strings.Contains(r.stderr, "No MCP servers configured.") {
		t.Errorf("gemini mcp list after gemini-ls removed it:\n%s", r.stderr)
	}
}

// TestMCPListUntrustedFolder: in a folder not trusted, servers are
// listed, each Disabled, under 0.61's warning, and none is started.
func TestMCPListUntrustedFolder(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, false)
	marker := filepath.Join(t.TempDir(), "started")
	writeFile(t, w.projectSettings(), `{"mcpServers": {"s": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`)
	ours, theirs := w.ls("mcp", "list"), w.gemini("mcp", "list")
	if ours.stderr != theirs.stderr || !strings.Contains(ours.stderr, "\u25cb s: sh -c touch "+marker+" (stdio) - Disabled") {
		t.Errorf("gemini-ls said\n%s\nGemini CLI said\n%s", ours.stderr, theirs.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a server of an untrusted folder was started")
	}
}

// TestMCPErrorsAsGeminiCLI: bad input gets 0.61's words and exit status,
// and changes nothing.
func TestMCPErrorsAsGeminiCLI(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	for _, args := range [][]string{
		{"mcp", "add", "-s", "global", "x", "y"},
		{"mcp", "add", "-t", "ws", "x", "y"},
		{"mcp", "add", "x"},
		{"mcp", "remove"},
		{"mcp", "remove", "nothing"},
		{"mcp", "remove", "-s", "user", "nothing"},
		{"mcp", "list", "--bogus"},
		{"mcp"},
	} {
		ours, theirs := w.ls(args...), w.gemini(args...)
		firstLine := func(s string) string { line, _, _ := strings.Cut(s, "\n"); return line }
		if ours.code != theirs.code || firstLine(ours.stderr) != firstLine(theirs.stderr) {
			t.Errorf("%v: gemini-ls said (%d)\n%s\nGemini CLI said (%d)\n%s", args, ours.code, ours.stderr, theirs.code, theirs.stderr)
		}
	}
	if _, err := os.Stat(w.projectSettings()); err == nil {
		t.Errorf("a settings file was written: %s", w.read(w.projectSettings()))
	}
	// The home directory's project scope is the user's: refused, as 0.61
	// means to (it says it added the server, and writes nothing).
	home := mgmtWorld{t: t, home: w.home, dir: w.home}
	theirs := home.gemini("mcp", "add", "x", "y")
	if _, err := os.Stat(w.userSettings()); err == nil {
		t.Errorf("Gemini CLI wrote the user's settings after all (it said %q): %s", theirs.stderr, w.read(w.userSettings()))
	}
	ours := home.ls("mcp", "add", "x", "y")
	if ours.code != 1 || ours.stderr != "Error: Please use --scope user to edit settings in the home directory.\n" {
		t.Errorf("project scope in the home directory: (%d) %s", ours.code, ours.stderr)
	}
	if _, err := os.Stat(w.userSettings()); err == nil {
		t.Errorf("gemini-ls wrote the user's settings: %s", w.read(w.userSettings()))
	}
}

// TestMCPAddBadEnvWarned: an --env that is not KEY=value, or holds a
// second "=", is written as 0.61 writes it (left out, cut), and said.
func TestMCPAddBadEnvWarned(t *testing.T) {
	t.Parallel()
	ours, theirs := newMgmtWorld(t, true), newMgmtWorld(t, true)
	args := []string{"mcp", "add", "s", "cmd", "-e", "NOVALUE", "-e", "K=a=b", "-e", "OK=1"}
	got, want := ours.ls(args...), theirs.gemini(args...)
	if got.code != 0 || want.code != 0 || !strings.Contains(got.stderr, `Warning: --env "NOVALUE" is not KEY=value`) ||
		!strings.Contains(got.stderr, `Warning: --env "K=a=b": the value is cut at its second "=" (K=a)`) {
		t.Errorf("gemini-ls said (%d) %s", got.code, got.stderr)
	}
	if a, b := ours.read(ours.projectSettings()), theirs.read(theirs.projectSettings()); a != b {
		t.Errorf("gemini-ls wrote\n%s\nGemini CLI wrote\n%s", a, b)
	}
	if r := ours.ls("mcp", "add", "t", "cmd", "--timeout", "soon"); r.code != 1 || !strings.Contains(r.stderr, `--timeout "soon" is not a number`) {
		t.Errorf("--timeout soon: (%d) %s", r.code, r.stderr)
	}
}

// TestMCPListTimeout: a server that never answers is Disconnected once
// its timeout (5 seconds without one, as in 0.61) has passed, and is
// stopped.
func TestMCPListTimeout(t *testing.T) {
	t.Parallel()
	w := mgmtWorld{t: t, home: t.TempDir(), dir: t.TempDir()}
	writeFile(t, filepath.Join(w.home, ".gemini", "settings.json"),
		`{"security": {"folderTrust": {"enabled": false}}, "mcpServers": {"mute": {"command": "sleep", "args": ["30"], "timeout": 300}}}`)
	start := time.Now()
	r := w.ls("mcp", "list")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "Configured MCP servers:\n\n\u2717 mute: sleep 30 (stdio) - Disconnected\n    connecting: context deadline exceeded after 300ms") {
		t.Errorf("(%d) %s", r.code, r.stderr)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("mcp list took %v for a server whose timeout is 300ms", took)
	}
}

// TestMCPDisabledByGeminiLSIsDisabledForGeminiCLI: the enablement file
// gemini-ls mcp disable writes is the one Gemini CLI 0.61 reads: its mcp
// list, like gemini-ls's, shows the server Disabled and starts nothing;
// enable empties it. (0.61's own mcp enable and disable find no server:
// they look for it among the keys of what getMcpServersFromConfig
// returns, mcpServers and blockedServerNames, and say it is not found.)
func TestMCPDisabledByGeminiLSIsDisabledForGeminiCLI(t *testing.T) {
	t.Parallel()
	w := newMgmtWorld(t, true)
	marker := filepath.Join(t.TempDir(), "started")
	writeFile(t, w.projectSettings(), `{"mcpServers": {"Docs": {"command": "sh", "args": ["-c", "touch `+marker+`"]}}}`)
	enablement := func() string { return w.read(filepath.Join(w.home, ".gemini", "mcp-server-enablement.json")) }
	if r := w.ls("mcp", "disable", "Docs"); r.code != 0 || r.stderr != "\u2713 MCP server 'docs' disabled.\n" {
		t.Errorf("mcp disable: (%d) %q", r.code, r.stderr)
	}
	if got := enablement(); got != "{\n  \"docs\": {\n    \"enabled\": false\n  }\n}" {
		t.Errorf("the enablement file is %q", got)
	}
	ours, theirs := w.ls("mcp", "list"), w.gemini("mcp", "list")
	if ours.stderr != theirs.stderr || !strings.Contains(ours.stderr, "\u25cb Docs: sh -c touch "+marker+" (stdio) - Disabled") {
		t.Errorf("gemini-ls listed\n%s\nGemini CLI listed\n%s", ours.stderr, theirs.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a disabled server was started")
	}
	if r := w.ls("mcp", "enable", "docs"); r.stderr != "\u2713 MCP server 'docs' enabled.\n" || enablement() != "{}" {
		t.Errorf("mcp enable said %q and left %q", r.stderr, enablement())
	}
}
