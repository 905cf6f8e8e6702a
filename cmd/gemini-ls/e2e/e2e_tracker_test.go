package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// With experimental.taskTracker on, a task Gemini CLI 0.61's model made
// is gemini-ls's when it resumes the session, and the other way round:
// both keep a session's tasks in the same files, in
// ~/.gemini/tmp/<project>/<session id>/tracker, and both tell the model
// of that directory in the same words (0.61's task management
// protocol).
func TestTrackerTasksAreSharedWithGeminiCLI(t *testing.T) {
	root := newRoot(t, nil)
	home := geminiHome(t, root)
	settings := filepath.Join(home, ".gemini", "settings.json")
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	on := strings.Replace(string(data), `"useModelRouter": false`, `"useModelRouter": false, "taskTracker": true`, 1)
	if err := os.WriteFile(settings, []byte(on), 0o600); err != nil {
		t.Fatal(err)
	}

	theirs := geminitest.NewTestServer(t,
		call("tracker_create_task", map[string]any{"title": "Made by 0.61", "description": "A task Gemini CLI wrote.", "type": "task"}),
		geminitest.TextTurn("Created."))
	gemini61(t, home, root, theirs, "-m", "gemini-2.5-pro", "-p", "Track it.", "-o", "text")
	files, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "*", "tracker", "*.json"))
	if len(files) != 1 {
		t.Fatalf("0.61's task files: %v", files)
	}

	ours := geminitest.NewTestServer(t,
		call("tracker_list_tasks", map[string]any{}),
		call("tracker_create_task", map[string]any{"title": "Made by gemini-ls", "description": "A task gemini-ls wrote.", "type": "bug"}),
		geminitest.TextTurn("Listed."))
	gls(t, home, root, ours, "run", "--resume", "latest", "-p", "What is tracked?").wantExit(t, 0)
	reqs := ours.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if theirs, ours := trackerProtocol(t, theirs.Requests()[0]), trackerProtocol(t, reqs[0]); ours != theirs {
		t.Errorf("gemini-ls's task management protocol:\n%s\n0.61's:\n%s", ours, theirs)
	}
	listed := reqs[1].Contents[len(reqs[1].Contents)-1].Parts[0].FunctionResponse
	if got := responseOutput(listed); !strings.Contains(got, "] Made by 0.61 (open)") {
		t.Errorf("gemini-ls listed %q, want 0.61's task", got)
	}

	again := geminitest.NewTestServer(t, call("tracker_list_tasks", map[string]any{"type": "bug"}), geminitest.TextTurn("Seen."))
	gemini61(t, home, root, again, "-m", "gemini-2.5-pro", "--resume", "latest", "-p", "And the bugs?", "-o", "text")
	last := again.Requests()[1].Contents
	if got := responseOutput(last[len(last)-1].Parts[0].FunctionResponse); !strings.Contains(got, "] Made by gemini-ls (open)") {
		t.Errorf("0.61 listed %q, want gemini-ls's task", got)
	}
}

// trackerProtocol is the task management protocol of r's system
// instruction: from its heading to its last rule's end.
func trackerProtocol(t *testing.T, r geminitest.Request) string {
	t.Helper()
	var text strings.Builder
	if r.SystemInstruction != nil {
		for _, p := range r.SystemInstruction.Parts {
			text.WriteString(p.Text)
		}
	}
	_, after, ok := strings.Cut(text.String(), "# TASK MANAGEMENT PROTOCOL")
	section, _, ended := strings.Cut(after, "to save turns.")
	if !ok || !ended {
		t.Fatalf("no task management protocol in the system instruction:\n%s", text.String())
	}
	return section
}
