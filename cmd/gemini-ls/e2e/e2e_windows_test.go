//go:build windows

package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// TestWindowsHeadless is a Windows user's first run (issue 57), as
// scripts/test-windows.sh runs it under Wine: no HOME, the Gemini home in
// %USERPROFILE%, and the agent reading, running and editing. Its
// GEMINI.md reaches the model, the session is saved under the profile,
// `@sub\note.txt` attaches, echo comes back through the shell, and
// write_file and replace land, a CRLF file staying CRLF.
func TestWindowsHeadless(t *testing.T) {
	h := newHeadless(t, map[string]string{
		`sub/note.txt`: "the note's words\r\n",
		"crlf.txt":     "one\r\ntwo\r\nthree\r\n",
	},
		call("run_shell_command", map[string]any{"command": "echo hello-from-windows"}),
		call("write_file", map[string]any{"file_path": filepath.Join("made", "new.txt"), "content": "made on Windows\n"}),
		call("replace", map[string]any{"file_path": "crlf.txt", "old_string": "two\n", "new_string": "2\nTWO\n"}),
		geminitest.TextTurn("All done."),
	)
	profile := t.TempDir()
	trustFolder(t, profile, h.root)
	writeFiles(t, profile, map[string]string{".gemini/GEMINI.md": "The profile's memory: windows-marker-42.\n"})
	// What a Windows process has: the system's variables, the profile's,
	// and no HOME.
	env := []string{"USERPROFILE=" + profile, "LOCALAPPDATA=" + filepath.Join(profile, "AppData", "Local"), "APPDATA=" + filepath.Join(profile, "AppData", "Roaming")}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "PATH", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "SYSTEMDRIVE", "PROGRAMDATA":
			env = append(env, kv)
		}
	}
	for _, kv := range h.env {
		if name, _, _ := strings.Cut(kv, "="); name != "HOME" && name != "PATH" {
			env = append(env, kv)
		}
	}

	r := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", `summarize @sub\note.txt`)
	r.wantExit(t, 0)
	contains(t, "stdout", r.stdout, "All done.")

	reqs := h.model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4; stderr:\n%s", len(reqs), r.stderr)
	}
	first := string(reqs[0].Body)
	contains(t, "the first request", first, "windows-marker-42")
	contains(t, "the first request", first, "the note's words")
	// The model is told its shell: PowerShell, or cmd.exe where there is
	// none (Wine's powershell.exe is a stub).
	if !strings.Contains(first, "as `powershell.exe -NoProfile -Command ") && !strings.Contains(first, "as `cmd.exe /d /s /c ") || strings.Contains(first, "bash -c") {
		t.Errorf("the model was not told its Windows shell: %s", first)
	}
	// The command's own output, not the command line echoed back.
	for i, want := range map[int]string{1: `Output: hello-from-windows`, 2: "new.txt", 3: "crlf.txt"} {
		b, _ := json.Marshal(h.responses(i))
		contains(t, "the answer to call "+string(rune('0'+i)), string(b), want)
	}
	if got := h.disk(filepath.Join("made", "new.txt")); got != "made on Windows\n" {
		t.Errorf("made\\new.txt = %q", got)
	}
	if got, want := h.disk("crlf.txt"), "one\r\n2\r\nTWO\r\nthree\r\n"; got != want {
		t.Errorf("crlf.txt = %q, want %q (CRLF kept)", got, want)
	}

	var sessions []string
	filepath.WalkDir(profile, func(path string, d fs.DirEntry, err error) error {
		// Where Gemini CLI keeps it: ~\.gemini\tmp\<project>\chats.
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(path)) == "chats" {
			sessions = append(sessions, path)
		}
		return nil
	})
	if len(sessions) == 0 {
		t.Errorf("no session saved under the profile %s", profile)
	}
}
