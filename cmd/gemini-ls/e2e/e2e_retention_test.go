package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// oldSession writes a session as Gemini CLI 0.61 writes one, last
// updated age ago, into chats; it returns its file.
func oldSession(t *testing.T, chats, id string, age time.Duration) string {
	t.Helper()
	at := time.Now().Add(-age).UTC()
	iso := at.Format("2006-01-02T15:04:05.000Z")
	text := `{"sessionId":"` + id + `","projectHash":"h","startTime":"` + iso + `","lastUpdated":"` + iso + `","kind":"main"}` + "\n" +
		`{"id":"u1","timestamp":"` + iso + `","type":"user","content":[{"text":"an old question"}]}` + "\n"
	path := filepath.Join(chats, "session-"+at.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// chatsOf is the one project chats directory under home's ~/.gemini.
func chatsOf(t *testing.T, home string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats"))
	if len(dirs) != 1 {
		t.Fatalf("chats directories: %v", dirs)
	}
	return dirs[0]
}

func sessionFiles(t *testing.T, chats string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(chats, "session-*.jsonl"))
	return files
}

// At start-up `run` removes the sessions older than maxAge (30 days by
// default, as in 0.61) and keeps the others, its own included.
func TestRunRemovesSessionsOlderThanMaxAge(t *testing.T) {
	h := newHeadless(t, nil, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	var home string
	for _, kv := range h.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if r := h.run("run", "-p", "first"); r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.stderr)
	}
	chats := chatsOf(t, home)
	first := sessionFiles(t, chats)
	old := oldSession(t, chats, "0a0a0a0a-0000-4000-8000-000000000001", 40*24*time.Hour)
	recent := oldSession(t, chats, "0b0b0b0b-0000-4000-8000-000000000002", 10*24*time.Hour)
	if r := h.run("run", "-p", "second"); r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the session older than 30 days is still there")
	}
	for _, kept := range append(first, recent) {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
	if n := len(sessionFiles(t, chats)); n != 3 {
		t.Errorf("%d session files, want the first run's, the recent one and the second run's", n)
	}
}

// Over the LSP, general.sessionRetention.maxCount keeps the most recent
// sessions once a session starts; the new session, whose file its first
// prompt writes as it runs, is kept but not among those counted, as 0.61
// does not count its new session, whose file holds no message yet.
func TestLSPSessionRetentionMaxCount(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"general":{"sessionRetention":{"maxCount":2}}}`})
	env := []string{"HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	h := start(t, setup{profile: lsptest.Plugin(), env: env}, geminitest.TextTurn("one"))
	h.prompt(map[string]any{"prompt": "first"})
	chats := chatsOf(t, home)
	first := sessionFiles(t, chats)
	kept := oldSession(t, chats, "0c0c0c0c-0000-4000-8000-000000000003", time.Hour)
	dropped := []string{
		oldSession(t, chats, "0d0d0d0d-0000-4000-8000-000000000004", 2*time.Hour),
		oldSession(t, chats, "0e0e0e0e-0000-4000-8000-000000000005", 3*time.Hour),
	}

	again := start(t, setup{profile: lsptest.Plugin(), env: env, root: h.root}, geminitest.TextTurn("two"))
	res := again.prompt(map[string]any{"prompt": "second"})
	// The cleanup runs beside the first session; wait for it, boundedly.
	deadline := time.Now().Add(20 * time.Second)
	for exists(dropped[0]) || exists(dropped[1]) {
		if time.Now().After(deadline) {
			t.Fatal("the sessions beyond maxCount are still there")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, path := range append(first, kept) {
		if !exists(path) {
			t.Errorf("%s, among the 2 most recent, was removed", path)
		}
	}
	if files := sessionFiles(t, chats); len(files) != 3 || !strings.Contains(strings.Join(files, " "), res.SessionID[:8]) {
		t.Errorf("files %v; want the 2 kept and the session in use (%s)", files, res.SessionID)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
