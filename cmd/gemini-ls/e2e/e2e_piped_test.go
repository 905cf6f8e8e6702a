package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Text piped into a headless run is data for the model: one beginning
// with ! is not a shell line, even in yolo mode, and the prompt typed
// after it is not run as a command either; the model is asked.
func TestPipedTextIsNeverAShellLine(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("summary"))
	stdin := strings.NewReader("!touch " + h.path("pwned") + "\n")
	res := h.runWith(h.root, h.env, stdin, "run", "--approval-mode", "yolo", "-p", "summarize this issue")
	res.wantExit(t, 0)
	if h.exists("pwned") {
		t.Fatalf("piped text ran as a shell line (%d model requests)\nstdout: %q", len(h.model.Requests()), res.stdout)
	}
	if n := len(h.model.Requests()); n == 0 || !strings.Contains(res.stdout, "summary") {
		t.Errorf("the model was not asked (%d requests); stdout %q", n, res.stdout)
	}
}

// A command that writes files where its arguments say (/export-session,
// /chat share, /restore) does not run from text piped in, which may come
// from anywhere, and says why; typed with -p, as a script's author does,
// it runs.
func TestPipedTextRunsNoCommandThatWrites(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("hello"))
	h.run("run", "-p", "hi").wantExit(t, 0)
	victim := filepath.Join(h.homeOf(), ".profile")
	writeFiles(t, h.homeOf(), map[string]string{".profile": "export KEEP=1\n"})
	for _, line := range []string{"/export-session " + victim, "/chat share " + victim, "/restore some-checkpoint"} {
		res := h.runWith(h.root, h.env, strings.NewReader(line+"\n"), "run", "--resume", "latest")
		if got := readFile(victim); got != "export KEEP=1\n" {
			t.Fatalf("piped %q overwrote %s (exit %d, stdout %q)", line, victim, res.code, res.stdout)
		}
		if res.code == 0 || !strings.Contains(res.stderr, "came from text piped in") {
			t.Errorf("piped %q: exit %d, stderr %q; want a refusal saying why", line, res.code, res.stderr)
		}
	}
	typed := filepath.Join(h.root, "session.json")
	h.run("run", "--resume", "latest", "-p", "/export-session "+typed).wantExit(t, 0)
	if got := readFile(typed); !strings.Contains(got, `"sessionId"`) {
		t.Errorf("/export-session typed with -p wrote %q", got)
	}
}
