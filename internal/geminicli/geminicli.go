package geminicli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Version is the Gemini CLI version npm/package.json pins.
const Version = "0.61.0"

// JS is the path of the installed Gemini CLI's bundle/gemini.js. Without
// one (or without node), the test fails under CI and is skipped elsewhere.
func JS(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	js := filepath.Join(filepath.Dir(file), "npm", "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
	missing := ""
	if _, err := os.Stat(js); err != nil {
		missing = "Gemini CLI " + Version + " is not installed (make gemini-cli installs it)"
	} else if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH, and Gemini CLI needs it"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	return js
}

// Command is Gemini CLI run with args in dir, its home home. baseURL, when
// not "", is the Gemini API it talks to (a geminitest server), with a
// placeholder API key.
func Command(t testing.TB, home, dir, baseURL string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("node", append([]string{JS(t)}, args...)...)
	cmd.Dir = dir
	cmd.Env = Env(home, baseURL)
	return cmd
}

// Env is the environment Gemini CLI runs in: the caller's, less anything
// that would reach Google, a real home or a terminal, with home as HOME.
func Env(home, baseURL string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", name == "XDG_CONFIG_HOME", name == "XDG_STATE_HOME",
			strings.HasPrefix(name, "GEMINI_"), strings.HasPrefix(name, "GOOGLE_"),
			strings.HasPrefix(name, "OTEL_"), name == "CI":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home,
		"GEMINI_CLI_NO_RELAUNCH=true", // one process: no relaunch with a bigger heap
		"NO_COLOR=1", "TERM=dumb")
	if baseURL != "" {
		env = append(env, "GOOGLE_GEMINI_BASE_URL="+baseURL, "GEMINI_API_KEY=geminicli-test")
	}
	return env
}

// Module is the file of Gemini CLI's bundle that exports name (one of
// its chunks, whose names are hashes), for a test that calls 0.61's own
// code rather than drive its terminal interface.
func Module(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Dir(JS(t))
	files, err := filepath.Glob(filepath.Join(dir, "chunk-*.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), "\nfunction "+name+"(") && strings.Contains(string(b), "\n  "+name+",\n") {
			return f
		}
	}
	t.Fatalf("no chunk of Gemini CLI %s's bundle in %s exports %s", Version, dir, name)
	return ""
}

// setValueScript calls Gemini CLI's writer of trustedFolders.json, the
// one its trust dialog and /permissions call.
const setValueScript = `const [chunk, folder, level] = process.argv.slice(2);
const m = await import(chunk);
await m.loadTrustedFolders().setValue(folder, m.TrustLevel[level]);
`

// SetFolderTrust records level (TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST)
// for folder in home's trustedFolders.json as Gemini CLI 0.61 records the
// answer to its trust dialog: with its own code.
func SetFolderTrust(t testing.TB, home, folder, level string) {
	t.Helper()
	chunk := Module(t, "loadTrustedFolders")
	script := filepath.Join(t.TempDir(), "set-folder-trust.mjs")
	if err := os.WriteFile(script, []byte(setValueScript), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, chunk, folder, level)
	cmd.Env = Env(home, "")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("Gemini CLI's setValue(%s, %s): %v\n%s", folder, level, err, out)
	}
}
