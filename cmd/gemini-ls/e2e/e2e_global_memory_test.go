package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Issue 85: the global ~/.gemini/GEMINI.md is where the model keeps the
// user's cross-project facts (there is no save_memory), and Gemini CLI
// 0.61 lets the file tools reach it (Config.isPathAllowed) although it
// lies outside the workspace. It is reachable as that one file: the
// rest of ~/.gemini is not.

// globalMemory is HOME's ~/.gemini/GEMINI.md, holding text unless it is
// "" (then no file).
func globalMemory(t *testing.T, home, text string) string {
	t.Helper()
	path := filepath.Join(home, ".gemini", "GEMINI.md")
	if text != "" {
		writeFiles(t, home, map[string]string{".gemini/GEMINI.md": text})
	}
	return path
}

// In yolo, write_file creates the global GEMINI.md and replace edits it;
// the next run is given it. Another file in ~/.gemini stays out of
// reach.
func TestRunYoloWritesTheGlobalMemory(t *testing.T) {
	h := newHeadless(t, nil)
	home := envValue(h.env, "HOME")
	global := globalMemory(t, home, "")
	settingsFile := filepath.Join(home, ".gemini", "settings.json")
	h.model.Push(
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": global, "content": "- Prefers tabs\n"})),
		geminitest.CallTurn(geminitest.Call("replace", map[string]any{"file_path": global, "old_string": "tabs", "new_string": "tabs and short names"})),
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": settingsFile})),
		geminitest.TextTurn("noted"),
		geminitest.TextTurn("hello again"),
	)
	h.run("run", "--approval-mode", "yolo", "-p", "remember that I prefer tabs").wantExit(t, 0)
	if got := lastResponses(h.model.Requests(), 1); len(got) != 1 || got[0] != "Successfully created and wrote to new file: "+global {
		t.Errorf("write_file answered %q", got)
	}
	if got := lastResponses(h.model.Requests(), 2); len(got) != 1 || got[0] != "Successfully modified file: "+global+" (1 replacements)." {
		t.Errorf("replace answered %q", got)
	}
	if got := lastResponses(h.model.Requests(), 3); len(got) != 1 || !strings.Contains(got[0], "outside the workspace") {
		t.Errorf("read_file of ~/.gemini/settings.json answered %q, want it refused as outside the workspace", got)
	}
	if got, err := os.ReadFile(global); err != nil || string(got) != "- Prefers tabs and short names\n" {
		t.Fatalf("~/.gemini/GEMINI.md = %q, %v", got, err)
	}
	h.run("run", "-p", "hi").wantExit(t, 0)
	reqs := h.model.Requests()
	if memory := firstMemory(reqs[len(reqs)-1]); !strings.Contains(memory, "- Prefers tabs and short names") {
		t.Errorf("the next run was not given the global memory:\n%s", memory)
	}
}

// Through an editor in the default mode, an edit of the global GEMINI.md
// is asked about (session/request_permission, naming the file) like any
// edit, and lands once allowed; a refused one leaves it as it was.
func TestACPDefaultModeAsksToEditTheGlobalMemory(t *testing.T) {
	home := t.TempDir()
	global := globalMemory(t, home, "- Prefers tabs\n")
	refuseSecond := func(req sdk.RequestPermissionRequest) acptest.Answer {
		if strings.Contains(toolCallTitle(req), "spaces") {
			return acptest.RejectOnce
		}
		return acptest.AllowOnce
	}
	h := startACP(t, acpSetup{home: home, cfg: acptest.Config{Answer: refuseSecond}},
		call("replace", map[string]any{"file_path": global, "old_string": "tabs", "new_string": "tabs and short names"}),
		call("write_file", map[string]any{"file_path": global, "content": "- Prefers spaces\n"}),
		geminitest.TextTurn("noted"))
	h.mustPrompt("remember that I prefer short names", sdk.StopReasonEndTurn)
	perms := h.client.Permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want one per edit", len(perms))
	}
	for i, p := range perms {
		if l := p.ToolCall.Locations; len(l) != 1 || l[0].Path != global {
			t.Errorf("permission request %d is about %+v, want %s", i, l, global)
		}
	}
	if got := lastResponses(h.model.Requests(), 1); len(got) != 1 || got[0] != "Successfully modified file: "+global+" (1 replacements)." {
		t.Errorf("replace answered %q", got)
	}
	if got, err := os.ReadFile(global); err != nil || string(got) != "- Prefers tabs and short names\n" {
		t.Errorf("~/.gemini/GEMINI.md = %q, %v; want the allowed edit only", got, err)
	}
}

// lastResponses are the outputs or errors of the function responses
// request i of reqs answers with (its last content).
func lastResponses(reqs []geminitest.Request, i int) []string {
	if i >= len(reqs) {
		return nil
	}
	contents := reqs[i].Contents
	return functionResponses(contents[len(contents)-1:])
}

// toolCallTitle is what a permission request shows of its call: its
// title and content.
func toolCallTitle(req sdk.RequestPermissionRequest) string {
	var b strings.Builder
	if req.ToolCall.Title != nil {
		b.WriteString(*req.ToolCall.Title)
	}
	for _, c := range req.ToolCall.Content {
		if c.Diff != nil {
			b.WriteString(c.Diff.NewText)
		}
	}
	return b.String()
}
