package completion

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// busy reports whether a request of path is in flight.
func (f *flights) busy(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.docs[path] != nil
}

const secret = "sk-live-0123456789abcdef"

func TestPrivateFilesNeverLeave(t *testing.T) {
	files := map[string]string{
		".gitignore":    "build/\n*.log\n",
		".geminiignore": "vendor-secrets/\n",
		"main.go":       "package main\n",
	}
	r := newRig(t, settings.InlineCompletion{Exclude: []string{"config/prod/**"}}, files)
	for _, name := range []string{
		".env", ".env.local", "deploy/server.pem", "keys/id_ed25519", ".ssh/config", "build/out.go",
		"debug.log", "vendor-secrets/token.go", "config/prod/db.go", ".npmrc",
	} {
		req := r.open(name, "TOKEN="+secret+"\nX=|\n")
		if got := r.complete(req); got != "" {
			t.Errorf("%s was completed: %q", name, got)
		}
	}
	if n := len(r.model.Requests()); n != 0 {
		t.Fatalf("%d model requests for private files, want none", n)
	}
	if st := r.e.Stats(); st.Private != 10 {
		t.Errorf("private %d, want 10", st.Private)
	}

	// Completing a file that may go: the private ones, open and edited,
	// lend it nothing.
	r.model.Push(geminitest.TextTurn("x"))
	r.change(".env", "TOKEN="+secret+"\nX=2\n")
	r.change("deploy/server.pem", "-----BEGIN "+secret+"\n")
	req := r.open("main.go", "package main\n\nfunc main() {\n\t|\n}\n")
	r.complete(req)
	reqs := r.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if body := string(reqs[0].Body); strings.Contains(body, secret) || strings.Contains(body, ".env") || strings.Contains(body, "server.pem") {
		t.Errorf("a private file reached the model:\n%s", body)
	}
}

// The files ignore files ignore stay private when the agent's searches
// do not obey them (context.fileFiltering's respectGitIgnore and
// respectGeminiIgnore false).
func TestIgnoredFilesStayPrivateWhateverTheSearchesObey(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, map[string]string{".gitignore": "*.log\n", ".geminiignore": "vendor-secrets/\n"})
	r.ws.SetIgnoreFiles(workspace.IgnoreFiles{SkipGit: true, SkipGemini: true})
	for _, name := range []string{"debug.log", "vendor-secrets/token.go"} {
		if got := r.complete(r.open(name, "TOKEN="+secret+"\nX=|\n")); got != "" {
			t.Errorf("%s was completed: %q", name, got)
		}
	}
	if n := len(r.model.Requests()); n != 0 {
		t.Errorf("%d model requests for ignored files, want none", n)
	}
}

func TestFilesOutsideTheRootsArePrivate(t *testing.T) {
	r := newRig(t, settings.InlineCompletion{}, nil)
	if !r.e.private.isPrivate(context.Background(), "/etc/hostname") {
		t.Error("a file outside the workspace may be sent")
	}
	r.open("new.go", "|") // a new buffer, not on disk yet
	if r.e.private.isPrivate(context.Background(), r.path("new.go")) {
		t.Error("a plain new file in the workspace is private")
	}
}
