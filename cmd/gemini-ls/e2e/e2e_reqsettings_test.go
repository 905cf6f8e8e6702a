package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// overloaded is a 503 that asks for a short wait (google.rpc.RetryInfo),
// so the retries do not wait the 5 s, 10 s, ... of the backoff.
func overloaded() geminitest.Turn {
	return geminitest.Turn{Err: &geminitest.APIError{Code: 503, Message: "The model is overloaded. Please try again later.", RetryDelay: 10 * time.Millisecond}}
}

// chatRequests are the model requests of the conversation itself.
func chatRequests(h *headless) []geminitest.Request {
	var out []geminitest.Request
	for _, r := range h.model.Requests() {
		if r.Method == "streamGenerateContent" {
			out = append(out, r)
		}
	}
	return out
}

// general.maxAttempts: 2 makes two requests against three 503s, and the
// run fails saying why; by default the same 503s are retried until the
// answer comes.
func TestRunMaxAttemptsBoundsTheRetries(t *testing.T) {
	turns := []geminitest.Turn{overloaded(), overloaded(), overloaded(), geminitest.TextTurn("at last")}

	h := newHeadless(t, map[string]string{".gemini/settings.json": `{"general": {"maxAttempts": 2}}`}, turns...)
	r := h.run("run", "-p", "hello")
	if r.code == 0 {
		t.Fatalf("maxAttempts 2 against three 503s: the run succeeded\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "503") || !strings.Contains(r.stderr, "overloaded") {
		t.Errorf("stderr does not name the 503:\n%s", r.stderr)
	}
	if n := len(chatRequests(h)); n != 2 {
		t.Errorf("maxAttempts 2: %d requests, want 2", n)
	}

	h = newHeadless(t, nil, turns...)
	r = h.run("run", "-p", "hello")
	r.wantExit(t, 0)
	if !strings.Contains(r.stdout, "at last") {
		t.Errorf("the answer after the retries is not printed:\n%s", r.stdout)
	}
	if n := len(chatRequests(h)); n != 4 {
		t.Errorf("by default: %d requests, want 4 (three 503s retried)", n)
	}
}

// Gemini CLI 0.61 with general.maxAttempts 2 against the same three 503s
// makes two requests too, and fails. (It waits its backoff, about 5 s,
// whatever RetryInfo says of a 503.)
func TestRunMaxAttemptsAsGeminiCLI(t *testing.T) {
	project := t.TempDir()
	if p, err := filepath.EvalSymlinks(project); err == nil {
		project = p
	}
	writeFiles(t, project, map[string]string{".gemini/settings.json": `{"general": {"maxAttempts": 2}}`})
	model := geminitest.NewTestServer(t, overloaded(), overloaded(), overloaded(), geminitest.TextTurn("at last"))
	cmd := geminicli.Command(t, geminiCLIHome(t, project), project, model.URL, "-p", "hello", "-m", "gemini-2.5-flash")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatalf("0.61 succeeded against three 503s with maxAttempts 2:\n%s", stdout.String())
	}
	n := 0
	for _, r := range model.Requests() {
		if r.Method == "streamGenerateContent" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("0.61 made %d requests with maxAttempts 2, want 2 (as gemini-ls)\nstderr:\n%s", n, stderr.String())
	}
	t.Logf("0.61: %v\nstderr:\n%s", err, stderr.String())
}
