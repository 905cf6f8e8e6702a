package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A transcript is named for the user: the session's day, its title in
// a few words a file name holds, and the start of its id.
func TestTranscriptName(t *testing.T) {
	day := time.Date(2026, 11, 24, 12, 0, 0, 0, time.Local)
	id := "1a2b3c4d-0000-4000-8000-00000000000f"
	for _, tc := range []struct {
		title, prompt, want string
	}{
		{"make greet say Hi", "", "2026-11-24-make-greet-say-hi-1a2b3c4d.md"},
		// A new session has no title yet: its first prompt's first line.
		{"", "Implement this TODO in greet.py: \"add a farewell function\".\nKeep it focused.", "2026-11-24-implement-this-todo-in-greet-py-1a2b3c4d.md"},
		// Nothing a shell or a path reads otherwise.
		{"../../etc/passwd; rm -rf ~ && echo $HOME", "", "2026-11-24-etc-passwd-rm-rf-echo-home-1a2b3c4d.md"},
		{"Ünïcödé 世界 words", "", "2026-11-24-ünïcödé-世界-words-1a2b3c4d.md"},
		{"Antidisestablishmentarianismisalongwordindeed yes", "", "2026-11-24-antidisestablishmentarianismisal-1a2b3c4d.md"},
		{"???", "", "2026-11-24-1a2b3c4d.md"},
		{"", "", "2026-11-24-1a2b3c4d.md"},
	} {
		got := transcriptName(dialog.SessionInfo{ID: id, Title: tc.title, CreatedAt: day}, tc.prompt)
		if got != tc.want {
			t.Errorf("title %q, prompt %q: name %q, want %q", tc.title, tc.prompt, got, tc.want)
		}
	}
	// Older sessions' ids are base32, upper case.
	if got := transcriptName(dialog.SessionInfo{ID: "Y2RFIM5GDNO7BIBAUIV7TWOXQ6", Title: "hi", CreatedAt: day}, ""); got != "2026-11-24-hi-y2rfim5g.md" {
		t.Errorf("base32 id: name %q", got)
	}
}

// A session keeps its transcript: within a connection, after a restart
// (found by its id), and one written before transcripts had names (by
// its whole id) goes on.
func TestTranscriptPathOfASession(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 11, 24, 12, 0, 0, 0, time.Local)
	info := dialog.SessionInfo{ID: "1a2b3c4d-0000-4000-8000-00000000000f", CreatedAt: day}

	first := (&transcripts{}).pathOf(dir, info, "first prompt")
	if want := filepath.Join(dir, "2026-11-24-first-prompt-1a2b3c4d.md"); first != want {
		t.Fatalf("path %s, want %s", first, want)
	}
	if err := os.WriteFile(first, []byte("## Prompt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Another session of the same title, the same day.
	other := (&transcripts{}).pathOf(dir, dialog.SessionInfo{ID: "9f8e7d6c-0000-4000-8000-000000000000", CreatedAt: day}, "first prompt")
	if other == first {
		t.Errorf("two sessions share the transcript %s", first)
	}
	// The session titled since, in a new server.
	info.Title = "first prompt, titled"
	if got := (&transcripts{}).pathOf(dir, info, "a later prompt"); got != first {
		t.Errorf("after a restart: path %s, want %s", got, first)
	}

	legacyInfo := dialog.SessionInfo{ID: "0b1c2d3e-0000-4000-8000-000000000000", Title: "old", CreatedAt: day}
	legacy := filepath.Join(dir, legacyInfo.ID+".md")
	if err := os.WriteFile(legacy, []byte("## Prompt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := &transcripts{}
	if got := ts.pathOf(dir, legacyInfo, "more"); got != legacy {
		t.Errorf("a session with a transcript named by its id: path %s, want %s", got, legacy)
	}
	if err := os.Remove(legacy); err != nil {
		t.Fatal(err)
	}
	if got := ts.pathOf(dir, legacyInfo, "more"); got != legacy {
		t.Errorf("within a connection the path moved to %s", got)
	}
}
