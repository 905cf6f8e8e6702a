package sessionstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
func projectChats(t testing.TB, s *Store, root string) string {
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

// leftBy makes what session id leaves in chats' project besides its
// file: its log, a tool output, a subagent's session; their paths.
func leftBy(t *testing.T, chats, id string) []string {
	t.Helper()
	project := filepath.Dir(chats)
	paths := []string{
		filepath.Join(project, "logs", "session-"+id+".jsonl"),
		filepath.Join(project, "tool-outputs", "session-"+id, "out.txt"),
		filepath.Join(chats, id, "sub.jsonl"),
	}
	for _, p := range paths {
		_ = os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return paths
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
	artifacts := leftBy(t, chats, oldID)

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

// bigSession61 is a session file holding a prompt of size bytes: 0.61's
// header, the prompt's message, then a "$set" that brings lastUpdated to
// updated.
func bigSession61(id string, started, updated time.Time, size int) string {
	return `{"sessionId":"` + id + `","projectHash":"h","startTime":"` + isoTime(started) + `","lastUpdated":"` + isoTime(started) + `","kind":"main"}` + "\n" +
		`{"id":"u1","type":"user","content":[{"text":"` + strings.Repeat("x", size) + `"}]}` + "\n" +
		`{"$set":{"lastUpdated":"` + isoTime(updated) + `"}}` + "\n"
}

// Clean-up judges a session file larger than wholeReadLimit by its ends:
// of a 16 MiB session it reads the header and the last line, a few KiB,
// and takes lastUpdated from the last.
func TestSummarizeReadsOnlyTheEndsOfALargeFile(t *testing.T) {
	const id = "55555555-aaaa-4aaa-8aaa-000000000005"
	started, updated := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	data := bigSession61(id, started, updated, 16<<20)
	r := &countingReaderAt{r: strings.NewReader(data)}
	sum, err := summarizeEnds(r, int64(len(data)), "big.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if limit := int64(4 * tailChunk); r.n > limit {
		t.Errorf("read %d bytes of a %d-byte file, over %d", r.n, len(data), limit)
	}
	if sum.SessionID != id || sum.Kind != "main" || !sum.resumable || parseTime(sum.LastUpdated) != updated {
		t.Errorf("summary %+v", sum)
	}
}

// Expire removes a large session by its last update and keeps a large
// recent one, as it does small ones, reading only their ends: the old
// one's message line, which it never reads, is not even JSON (read
// whole, the file would be kept as one it cannot read).
func TestExpireJudgesLargeFilesByTheirEnds(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	write := func(id string, started, updated time.Time) string {
		path := filepath.Join(chats, sharedName(id, started))
		if err := os.WriteFile(path, []byte(bigSession61(id, started, updated, 2*wholeReadLimit)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Both started long ago; the second was updated since.
	old := write("66666666-aaaa-4aaa-8aaa-000000000006", now.Add(-90*24*time.Hour), now.Add(-40*24*time.Hour))
	data, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, bytes.Replace(data, []byte(`"}]}`), []byte(`}]}`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	recent := write("77777777-aaaa-4aaa-8aaa-000000000007", now.Add(-90*24*time.Hour), now.Add(-time.Hour))
	res, err := s.Expire(context.Background(), "", Retention{MaxAge: 30 * 24 * time.Hour}, now, func(string) (bool, bool) { return false, false })
	if err != nil {
		t.Fatal(err)
	}
	if exists(old) || !exists(recent) {
		t.Errorf("old kept: %v, recent kept: %v; want false, true", exists(old), exists(recent))
	}
	if res.Deleted != 1 || res.Scanned != 2 {
		t.Errorf("result %+v", res)
	}
}

// A second file of a session with nothing to resume (0.61's --resume
// makes one when the minute has turned since the session began) goes,
// but what the session left stays while its other file does: its log,
// its tool outputs, its subagents' sessions. 0.61 removes them, and the
// file to resume with them.
func TestExpireKeepsWhatASessionLeftWhileAnotherOfItsFilesStays(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const id = "55555555-aaaa-4aaa-8aaa-000000000005"
	resumable := writeSession61(t, chats, id, now.Add(-2*time.Hour), "hello")
	stray := writeSession61(t, chats, id, now.Add(-time.Hour), "")
	if resumable == stray {
		t.Fatal("the two files of the session share a name")
	}
	artifacts := leftBy(t, chats, id)
	if res := expireNow(t, s, now); res.Deleted != 1 || exists(stray) || !exists(resumable) {
		t.Fatalf("result %+v; the stray file left: %v; the session's file left: %v", res, exists(stray), exists(resumable))
	}
	for _, a := range artifacts {
		if !exists(a) {
			t.Errorf("%s went with the stray file", a)
		}
	}
}
