package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A sandboxed command writes a hook into the settings of a folder below
// the trusted root. A later run opened in that folder, trusted as the
// root's, does not obey them: it stops as in an untrusted folder, saying
// which file a sandboxed command could have written and how to trust the
// folder again, and runs nothing; once the user trusts it again
// (gemini-ls trust), the hook is announced and runs.
func TestRunAFolderASandboxedCommandConfiguredIsAskedAboutAgain(t *testing.T) {
	hook := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "name": "planted", "command": "touch \"$GEMINI_PROJECT_DIR/hooked\""}]}]}}`
	h := newHeadless(t, nil,
		shellCall("mkdir -p app/.gemini && cat > app/.gemini/settings.json <<'EOF'\n"+hook+"\nEOF\necho made", nil),
		geminitest.TextTurn("Done."),
		geminitest.TextTurn("Finished."),
	)
	home := strings.TrimPrefix(h.env[1], "HOME=")
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"tools": {"sandbox": "bwrap"}}`})
	r := h.runIn(h.root, h.env, "run", "--approval-mode", "yolo", "-p", "configure app")
	r.wantExit(t, 0)
	if out := responseOutput(h.responses(1)[0]); !strings.Contains(out, "Output: made\n") {
		t.Fatalf("the sandboxed command did not write the settings:\n%s", out)
	}
	app := filepath.Join(h.root, "app")
	settingsFile := filepath.Join(app, ".gemini", "settings.json")

	r = h.runIn(app, h.env, "run", "-p", "hi")
	r.wantExit(t, exitUntrusted)
	contains(t, "stderr", r.stderr, settingsFile+" was changed at ")
	contains(t, "stderr", r.stderr, "while commands in a sandbox could write in "+h.root)
	contains(t, "stderr", r.stderr, "gemini-ls trust "+app)
	if _, err := os.Stat(filepath.Join(app, "hooked")); err == nil {
		t.Fatal("the planted hook ran")
	}
	if n := len(h.model.Requests()); n != 2 {
		t.Errorf("refused, yet the model was asked: %d requests, want the first run's 2", n)
	}

	time.Sleep(50 * time.Millisecond) // a yes a clock tick after the change at least
	r = h.runIn(app, h.env, "trust", app)
	r.wantExit(t, 0)
	r = h.runIn(app, h.env, "run", "-p", "hi")
	r.wantExit(t, 0)
	contains(t, "stderr of the run trusted again", r.stderr, announcement)
	if _, err := os.Stat(filepath.Join(app, "hooked")); err != nil {
		t.Errorf("trusted again, the hook did not run: %v", err)
	}
}

// In the editor, a folder whose configuration a sandboxed command could
// have written, below a trusted one, is asked about at the first prompt,
// the question saying what changed; "Trust folder" trusts it as it now
// is, and its MCP server runs from that prompt on.
func TestTrustQuestionAgainForAFolderASandboxConfigured(t *testing.T) {
	home := t.TempDir()
	parent := newRoot(t, nil)
	trustFolder(t, home, parent)
	app := filepath.Join(parent, "app")
	trail := settings.SandboxTrail(func(name string) string { return map[string]string{"HOME": home}[name] })
	window, err := trail.Open([]string{parent}, []string{parent})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, app, map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}}),
	})
	if err := window.Close(); err != nil {
		t.Fatal(err)
	}
	// A yes within a clock tick (20 ms) of a change does not cover it; a
	// user reads the question first.
	time.Sleep(50 * time.Millisecond)
	h, a := startTrusting(t, trustCase{home: home, root: app}, "Trust folder", geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	h.command("first")
	if a.count() != 1 {
		t.Fatalf("asked %d times, want once", a.count())
	}
	contains(t, "the question", a.asked[0], "Do you trust the files in this folder?")
	contains(t, "the question", a.asked[0], "Asked again: "+filepath.Join(app, ".gemini", "settings.json")+" was changed at ")
	contains(t, "the question", a.asked[0], "while commands in a sandbox could write in "+parent)
	h.command("second")
	if a.count() != 1 {
		t.Errorf("asked %d times, want once", a.count())
	}
	if reqs := h.model.Requests(); len(reqs) != 2 || !slices.Contains(declared(reqs, 0), serverTool) {
		t.Errorf("trusted again, the first prompt's request does not offer the project's MCP tool")
	}
}

// An editor's own trust (VS Code's workspace trust, in
// initializationOptions.workspaceTrust) is a standing decision, as a rule
// is: a folder it trusts is trusted with no question while no sandboxed
// command could have changed its configuration; once one could have, the
// first prompt asks about it again, saying what changed, and the folder's
// MCP server runs only after "Trust folder". "Don't trust", answered
// to that question, is remembered over the editor's trust: the next
// start does not ask again and runs the folder restricted, until
// /permissions trust. The editor's false trusts nothing and asks nothing.
func TestTheEditorsTrustIsAskedAgainAfterASandboxConfigured(t *testing.T) {
	home := t.TempDir()
	parent := newRoot(t, nil)
	app := filepath.Join(parent, "app")
	project := map[string]string{
		".gemini/settings.json": settingsJSON(t, map[string]any{"tester": map[string]any{"command": mcpServerBinary(t)}}),
	}
	editorTrusted := map[string]any{"workspaceTrust": true}

	writeFiles(t, parent, project)
	h, a := startTrustingWith(t, trustCase{home: home, root: parent}, editorTrusted, "Trust folder", geminitest.TextTurn("untouched"))
	h.command("first")
	if a.count() != 0 {
		t.Errorf("the editor trusts the folder, nothing changed it, yet it was asked about: %q", a.asked)
	}
	if reqs := h.model.Requests(); len(reqs) != 1 || !slices.Contains(declared(reqs, 0), serverTool) {
		t.Errorf("trusted by the editor, the folder's MCP tool is not offered")
	}

	trail := settings.SandboxTrail(func(name string) string { return map[string]string{"HOME": home}[name] })
	window, err := trail.Open([]string{parent}, []string{parent})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, app, project)
	if err := window.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // a yes a clock tick after the change at least

	h, a = startTrustingWith(t, trustCase{home: home, root: app}, map[string]any{"workspaceTrust": false}, "Trust folder", geminitest.TextTurn("restricted"))
	h.command("first")
	if a.count() != 0 {
		t.Errorf("the editor does not trust the folder, yet it was asked about: %q", a.asked)
	}
	if reqs := h.model.Requests(); len(reqs) != 1 || slices.Contains(declared(reqs, 0), serverTool) {
		t.Errorf("untrusted by the editor, the folder's MCP tool is offered")
	}

	h, a = startTrustingWith(t, trustCase{home: home, root: app}, editorTrusted, "Don't trust", geminitest.TextTurn("refused"))
	h.command("first")
	if a.count() != 1 {
		t.Fatalf("asked %d times, want once: the editor's trust does not vouch for what a sandboxed command changed", a.count())
	}
	contains(t, "the question", a.asked[0], "Asked again: "+filepath.Join(app, ".gemini", "settings.json")+" was changed at ")
	contains(t, "the question", a.asked[0], "Don't trust: this folder runs in a restricted mode, and you are not asked again.")
	if reqs := h.model.Requests(); len(reqs) != 1 || slices.Contains(declared(reqs, 0), serverTool) {
		t.Errorf("not trusted, the folder's MCP tool is offered")
	}

	h, a = startTrustingWith(t, trustCase{home: home, root: app}, editorTrusted, "Trust folder", geminitest.TextTurn("still restricted"), geminitest.TextTurn("two"))
	h.command("first")
	if a.count() != 0 {
		t.Fatalf("after Don't trust, the next start asked again: %q", a.asked)
	}
	if reqs := h.model.Requests(); len(reqs) != 1 || slices.Contains(declared(reqs, 0), serverTool) {
		t.Errorf("after Don't trust, the editor's trust vouches for the folder: its MCP tool is offered")
	}
	time.Sleep(50 * time.Millisecond) // a yes a clock tick after the change at least
	_, reply := h.command("/permissions trust")
	contains(t, "/permissions trust", reply, "Trust level: TRUST_FOLDER")
	if a.count() != 1 {
		t.Fatalf("/permissions trust asked %d times, want once", a.count())
	}
	h.command("second")
	if reqs := h.model.Requests(); len(reqs) != 2 || !slices.Contains(declared(reqs, 1), serverTool) {
		t.Errorf("trusted again, the next prompt's request does not offer the project's MCP tool")
	}
}
