package sessionstore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// writeSession61 writes a session file as 0.61 writes one, last updated
// at updated, into the project's chats; prompt "" leaves it nothing to
// resume.
func writeSession61(t *testing.T, chats, id string, updated time.Time, prompt string) string {
	t.Helper()
	at := isoTime(updated)
	text := `{"sessionId":"` + id + `","projectHash":"h","startTime":"` + at + `","lastUpdated":"` + at + `","kind":"main"}` + "\n"
	if prompt != "" {
		text += `{"id":"u1","timestamp":"` + at + `","type":"user","content":[{"text":"` + prompt + `"}]}` + "\n"
	}
	path := filepath.Join(chats, sharedName(id, updated))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// projectChats makes the project's directory in 0.61's place, as 0.61's
// registry names it, and returns its chats directory.
func projectChats(t *testing.T, s *Store, root string) string {
	t.Helper()
	chats := filepath.Join(s.gemini, "tmp", "my-project", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"tmp", "history"} {
		dir := filepath.Join(s.gemini, base, "my-project")
		_ = os.MkdirAll(dir, 0o700)
		if err := os.WriteFile(filepath.Join(dir, ".project_root"), []byte(root), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return chats
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Expire removes what 0.61's start-up cleanup removes: sessions older
// than maxAge (with their logs, tool outputs and subagents), files with
// nothing to resume; it keeps the newer ones, the one in use however old,
// and a file it cannot read.
func TestExpireByAge(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const oldID, newID, openID, emptyID = "11111111-aaaa-4aaa-8aaa-000000000001", "22222222-aaaa-4aaa-8aaa-000000000002", "33333333-aaaa-4aaa-8aaa-000000000003", "44444444-aaaa-4aaa-8aaa-000000000004"
	old := writeSession61(t, chats, oldID, now.Add(-40*24*time.Hour), "old")
	fresh := writeSession61(t, chats, newID, now.Add(-2*24*time.Hour), "new")
	open := writeSession61(t, chats, openID, now.Add(-90*24*time.Hour), "resumed")
	empty := writeSession61(t, chats, emptyID, now, "")
	unreadable := filepath.Join(chats, "session-2026-01-01T00-00-broken00.jsonl")
	if err := os.WriteFile(unreadable, []byte("not json\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	project := filepath.Dir(chats)
	artifacts := []string{
		filepath.Join(project, "logs", "session-"+oldID+".jsonl"),
		filepath.Join(project, "tool-outputs", "session-"+oldID, "out.txt"),
		filepath.Join(chats, oldID, "sub.jsonl"),
	}
	for _, a := range artifacts {
		_ = os.MkdirAll(filepath.Dir(a), 0o700)
		if err := os.WriteFile(a, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	res, err := s.Expire(context.Background(), "", Retention{MaxAge: 30 * 24 * time.Hour}, now, func(id string) (bool, bool) { return id == openID, id == openID })
	if err != nil {
		t.Fatal(err)
	}
	if exists(old) || exists(empty) {
		t.Error("the expired session or the empty one is still there")
	}
	if !exists(fresh) || !exists(open) || !exists(unreadable) {
		t.Error("a newer session, the one in use or an unreadable file was removed")
	}
	for _, a := range artifacts {
		if exists(a) {
			t.Errorf("%s is left", a)
		}
	}
	if res.Deleted != 2 || res.Failed != 0 || res.Scanned != 4 {
		t.Errorf("result %+v", res)
	}
}

// maxCount keeps the most recent, the session in use among them.
func TestExpireByCount(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var paths []string
	ids := []string{"a0000000-0000-4000-8000-000000000000", "b0000000-0000-4000-8000-000000000000", "c0000000-0000-4000-8000-000000000000", "d0000000-0000-4000-8000-000000000000"}
	for i, id := range ids {
		paths = append(paths, writeSession61(t, chats, id, now.Add(-time.Duration(i)*time.Hour), "p"))
	}
	// In use: the oldest. Kept with it: the newest.
	if _, err := s.Expire(context.Background(), "", Retention{MaxCount: 2}, now, func(id string) (bool, bool) { return id == ids[3], id == ids[3] }); err != nil {
		t.Fatal(err)
	}
	var kept []bool
	for _, p := range paths {
		kept = append(kept, exists(p))
	}
	if want := []bool{true, false, false, true}; !slices.Equal(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
}
