package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// sdkDump is what the SDK makes of an API error, which no user can act
// on: its map of the details, and the API's advice to call ListModels.
var sdkDump = []string{"map[", "Details: [", "ListModels"}

// An API error ends a headless run with one sentence on stderr that says
// what went wrong and what to do, not the SDK's dump; the raw error is
// the log's, on stderr with --debug.
func TestRunAPIErrorsAreSentences(t *testing.T) {
	for _, c := range []struct {
		name string
		turn geminitest.Turn
		says []string
		raw  string
	}{
		{"invalid key", geminitest.InvalidAPIKey(), []string{"The API key in GEMINI_API_KEY is not valid", "gemini-ls login", "https://aistudio.google.com/apikey"}, "API_KEY_INVALID"},
		{"unknown model", geminitest.ModelNotFound("gemini-9-ultra"), []string{"The model gemini-9-ultra does not exist", "/model", "--model"}, "ListModels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHeadless(t, nil, c.turn, c.turn)
			r := h.run("run", "-p", "hi")
			r.wantExit(t, exitError)
			for _, want := range c.says {
				contains(t, "stderr", r.stderr, want)
			}
			for _, bad := range sdkDump {
				if strings.Contains(r.stderr, bad) {
					t.Errorf("stderr holds %q:\n%s", bad, r.stderr)
				}
			}
			loud := h.run("run", "--debug", "-p", "hi")
			loud.wantExit(t, exitError)
			if !strings.Contains(loud.stderr, `"msg":"api_error"`) || !strings.Contains(loud.stderr, c.raw) {
				t.Errorf("with --debug the log has no raw error (%s):\n%s", c.raw, loud.stderr)
			}
		})
	}
}

// A run refused before its turn (a folder not trusted: exit 55) says so
// on stderr alone, how to trust the folder for good with a command that
// does it; stdout gets nothing under stream-json and json alike, as Gemini
// CLI 0.61 writes nothing there (TestFatalErrorsWhereGeminiCLISaysThem).
func TestRunUntrustedFolderSaysItOnStderr(t *testing.T) {
	h := newHeadless(t, nil)
	for _, format := range []string{"stream-json", "json", "text"} {
		r := h.runIn(h.root, h.untrusted(), "run", "-o", format, "-p", "hi")
		r.wantExit(t, exitUntrusted)
		if r.stdout != "" {
			t.Errorf("-o %s: stdout %q, want nothing", format, r.stdout)
		}
		contains(t, "stderr", r.stderr, "not running in a trusted directory")
		contains(t, "stderr", r.stderr, "gemini-ls trust "+h.root)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("refused, yet %d model requests", n)
	}
}

// A flag that does not parse is said in one line on stderr, exit 1,
// whatever the format: nothing on stdout, as 0.61's yargs.
func TestRunBadFlagSaysItOnStderr(t *testing.T) {
	h := newHeadless(t, nil)
	for _, args := range [][]string{
		{"run", "-o", "json", "--no-such-flag", "-p", "hi"},
		{"run", "--output-format=stream-json", "--no-such-flag", "-p", "hi"},
	} {
		r := h.run(args...)
		r.wantExit(t, exitError)
		if r.stdout != "" || !strings.Contains(r.stderr, "no-such-flag") {
			t.Errorf("%q: stdout %q, stderr %q", args, r.stdout, r.stderr)
		}
	}
}

// gemini-ls trust records the folder in trustedFolders.json, after which
// a headless run there runs; Gemini CLI reads the same file.
func TestTrustCommand(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("ran"))
	env := h.untrusted()
	h.runIn(h.root, env, "run", "-p", "hi").wantExit(t, exitUntrusted)
	r := h.runIn(h.root, env, "trust")
	r.wantExit(t, 0)
	contains(t, "stdout", r.stdout, "Trusted "+h.root)
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	data, err := os.ReadFile(filepath.Join(home, ".gemini", "trustedFolders.json"))
	if err != nil || !strings.Contains(string(data), `"`+h.root+`": "TRUST_FOLDER"`) {
		t.Errorf("trustedFolders.json = %s (%v)", data, err)
	}
	if r := h.runIn(h.root, env, "run", "-p", "hi"); r.code != 0 || r.stdout != "ran\n" {
		t.Errorf("after gemini-ls trust the run ended %d: %q %s", r.code, r.stdout, r.stderr)
	}
	// A variable that distrusts every folder wins over the file: said.
	r = h.runIn(h.root, append(env, "GEMINI_CLI_TRUST_WORKSPACE=false"), "trust", h.root)
	r.wantExit(t, exitError)
	contains(t, "stderr", r.stderr, "still not trusted")
}

// An @ reference to a file that does not exist is named on stderr, and
// the model is told it was not attached.
func TestRunNamesAMissingReference(t *testing.T) {
	h := newHeadless(t, map[string]string{"here.txt": "present\n"}, geminitest.TextTurn("ok"))
	r := h.run("run", "-p", "@no-such-file.txt explain @here.txt")
	r.wantExit(t, 0)
	contains(t, "stderr", r.stderr, "@no-such-file.txt")
	contains(t, "stderr", r.stderr, "not attached")
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	body := reqs[0].Body
	if !strings.Contains(string(body), "Skipped 1 item(s):\\n- @no-such-file.txt (Reason: no file or directory in the workspace matches it)") || !strings.Contains(string(body), "present") {
		t.Errorf("the model was not told: %s", body)
	}
}
