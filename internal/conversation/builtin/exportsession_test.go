package builtin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// /help lists /export-session, which writes the session as Gemini CLI
// 0.61 exports it (its ConversationRecord, JSON.stringify's two spaces)
// to the file named, resolved against the workspace root, with no model
// request; without a file, or before the session holds anything to
// export, it says what 0.61 says.
func TestExportSession(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("Hello, Ada."))
	env := h.conversation()
	if help := h.answer(env, "/help"); !strings.Contains(help, "\n- `/export-session` — Export the current session to a JSON file\n") {
		t.Errorf("/help does not list /export-session:\n%s", help)
	}
	if err := h.fails(env, "/export-session"); err.Error() != "Please provide a file path to export the session to. Example: /export-session ./my-session.json" {
		t.Errorf("/export-session without a file: %v", err)
	}
	if err := h.fails(env, "/export-session out.json"); err.Error() != "Failed to export session: No previous sessions found for this project." {
		t.Errorf("/export-session before a prompt: %v", err)
	}
	h.prompt(env, "my name is Ada")

	out := filepath.Join(h.root, "exports", "ada.json")
	if err := os.Mkdir(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := h.answer(env, "/export-session exports/ada.json"); got != "Successfully exported session to "+out {
		t.Errorf("/export-session said %q", got)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		SessionID        string `json:"sessionId"`
		ProjectHash      string `json:"projectHash"`
		Kind             string `json:"kind"`
		FirstUserMessage string `json:"firstUserMessage"`
		MessageCount     int    `json:"messageCount"`
		Messages         []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		HasResumableContent bool `json:"hasResumableContent"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !strings.HasPrefix(string(data), "{\n  \"sessionId\": \""+env.Session.ID()+"\",\n  \"projectHash\": \"") ||
		rec.Kind != "main" || rec.FirstUserMessage != "my name is Ada" || rec.MessageCount != 2 || len(rec.Messages) != 2 ||
		rec.Messages[0].Type != "user" || rec.Messages[1].Type != "gemini" || !rec.HasResumableContent {
		t.Errorf("the export:\n%s", data)
	}
	if strings.Contains(string(data), "$geminiLs") {
		t.Errorf("the export holds gemini-ls's own record:\n%s", data)
	}

	// Another process's new session has nothing saved: 0.61 looks it up
	// among the project's sessions and says it is not one of them.
	other := h.conversation()
	err = h.fails(other, "/export-session out.json")
	if want := "Failed to export session: Invalid session identifier \"" + other.Session.ID() + "\".\n  Searched for sessions in "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("/export-session of an unsaved session: %v", err)
	}
}

// The file named is written where the user said and nowhere else: an
// existing file is replaced, keeping its mode; a directory, a symbolic
// link or a missing directory is refused, and nothing is written.
func TestExportSessionWritesOnlyAFile(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("Hi."))
	env := h.conversation()
	h.prompt(env, "hello")

	old := h.write("old.json", "old")
	if err := os.Chmod(old, 0o640); err != nil {
		t.Fatal(err)
	}
	h.answer(env, "/export-session old.json")
	// Windows keeps no mode but read-only, so 0o640 is checked elsewhere.
	if fi, err := os.Stat(old); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 || fi.Size() < 100 {
		t.Errorf("the replaced file: %v, %v", fi, err)
	}
	elsewhere := filepath.Join(t.TempDir(), "abs.json")
	if got := h.answer(env, "/export-session "+elsewhere); got != "Successfully exported session to "+elsewhere {
		t.Errorf("an absolute path: %q", got)
	}

	if err := os.Mkdir(filepath.Join(h.root, "dir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{
		"dir.json":         filepath.Join(h.root, "dir.json") + " is a directory, not a file: nothing was written",
		"missing/out.json": filepath.Join(h.root, "missing") + ": no such directory, nothing was written",
	} {
		if err := h.fails(env, "/export-session "+arg); err.Error() != "Failed to export session: "+want {
			t.Errorf("/export-session %s: %v", arg, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.root, "missing")); err == nil {
		t.Error("the missing directory was made")
	}

	// Last, since where links cannot be made the test ends here.
	target := h.write("target.txt", "keep me")
	platformtest.Symlink(t, target, filepath.Join(h.root, "link.json"))
	want := filepath.Join(h.root, "link.json") + " is a symbolic link, not a file: nothing was written"
	if err := h.fails(env, "/export-session link.json"); err.Error() != "Failed to export session: "+want {
		t.Errorf("/export-session link.json: %v", err)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "keep me" {
		t.Errorf("the link's target: %q, %v", data, err)
	}
}
