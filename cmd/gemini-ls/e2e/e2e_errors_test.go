package e2e

import (
	"encoding/json"
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

// A run refused before its turn (a folder not trusted: exit 55) still
// ends stdout with one well-formed JSON result of status error, 0.61's
// handleError's, under stream-json and json alike; stderr says how to
// trust the folder, for good with a command that does it.
func TestRunUntrustedFolderJSONResult(t *testing.T) {
	h := newHeadless(t, nil)
	r := h.runIn(h.root, h.untrusted(), "run", "-o", "stream-json", "-p", "hi")
	r.wantExit(t, exitUntrusted)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var last struct {
		Type, Status string
		Error        struct{ Type, Message string }
		Stats        map[string]any
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("the last line is not JSON: %v\n%s", err, r.stdout)
	}
	if last.Type != "result" || last.Status != "error" || last.Error.Type != "FatalUntrustedWorkspaceError" ||
		!strings.Contains(last.Error.Message, "not running in a trusted directory") || last.Stats == nil {
		t.Errorf("the last event = %+v, want a result of status error", last)
	}
	contains(t, "stderr", r.stderr, "gemini-ls trust "+h.root)

	r = h.runIn(h.root, h.untrusted(), "run", "-o", "json", "-p", "hi")
	r.wantExit(t, exitUntrusted)
	var obj struct {
		Error *struct {
			Type, Message string
			Code          int
		}
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(&obj); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON object (%v):\n%s", err, r.stdout)
	}
	if obj.Error == nil || obj.Error.Type != "FatalUntrustedWorkspaceError" || obj.Error.Code != exitUntrusted ||
		!strings.Contains(obj.Error.Message, "gemini-ls trust") {
		t.Errorf("the object's error = %+v", obj.Error)
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("refused, yet %d model requests", n)
	}
}

// A flag that does not parse still answers -o json in JSON, exit 1.
func TestRunBadFlagJSONResult(t *testing.T) {
	h := newHeadless(t, nil)
	r := h.run("run", "-o", "json", "--no-such-flag", "-p", "hi")
	r.wantExit(t, exitError)
	var obj struct {
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &obj); err != nil {
		t.Fatalf("stdout is not JSON (%v):\n%s", err, r.stdout)
	}
	if !strings.Contains(obj.Error.Message, "no-such-flag") {
		t.Errorf("the error = %+v, want the flag named", obj.Error)
	}
	r = h.run("run", "--output-format=stream-json", "--no-such-flag", "-p", "hi")
	r.wantExit(t, exitError)
	if !strings.Contains(r.stdout, `"type":"result"`) || !strings.Contains(r.stdout, `"status":"error"`) {
		t.Errorf("stream-json stdout = %q, want a result of status error", r.stdout)
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
