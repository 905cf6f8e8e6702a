package sessionstore

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
)

// expireNow runs Expire with MaxAge 30 days at now, no session in use.
func expireNow(t *testing.T, s *Store, now time.Time) Expired {
	t.Helper()
	res, err := s.Expire(context.Background(), "", Retention{MaxAge: 30 * 24 * time.Hour}, now, func(string) (bool, bool) { return false, false })
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// age sets the modification time of paths an hour back, out of the
// racy window: clean-up keeps their summaries.
func age(t *testing.T, paths ...string) {
	t.Helper()
	setModTime(t, time.Now().Add(-time.Hour), paths...)
}

// rewriteInPlace gives path data (of its size) in place, its
// modification time put back: the file looks unchanged to a stat but
// its number.
func rewriteInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != fi.Size() {
		t.Fatalf("%d bytes for a file of %d", len(data), fi.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// grow appends an empty line to path: a file changed, and holding the
// same.
func grow(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n"); err != nil {
		t.Fatal(err)
	}
}

// Clean-up reads a session file only when it changed since the last
// clean-up read it: a file whose size, time and number are as they were
// is judged by what was read of it then, even though (rewritten here
// behind its stat) it now holds nothing to resume; once it grows, it is
// read again, and removed.
func TestExpireReadsOnlyTheFilesChangedSince(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const id, other = "a1111111-aaaa-4aaa-8aaa-000000000001", "b2222222-aaaa-4aaa-8aaa-000000000002"
	path := writeSession61(t, chats, id, now.Add(-time.Hour), "hello")
	kept := writeSession61(t, chats, other, now.Add(-time.Hour), "kept")
	age(t, path, kept)
	if res := expireNow(t, s, now); res.Deleted != 0 || res.Scanned != 2 {
		t.Fatalf("first clean-up: %+v", res)
	}
	if !exists(filepath.Join(chats, summariesName)) {
		t.Fatal("the first clean-up kept no summaries")
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// An info message of the same length: nothing to resume.
	rewriteInPlace(t, path, bytes.Replace(data, []byte(`"type":"user"`), []byte(`"type":"info"`), 1))
	if res := expireNow(t, s, now); res.Deleted != 0 || !exists(path) {
		t.Fatalf("the file unchanged to a stat was read again: %+v", res)
	}

	grow(t, path)
	if res := expireNow(t, s, now); res.Deleted != 1 || exists(path) || !exists(kept) {
		t.Fatalf("the grown file was not read again and removed: %+v", res)
	}
	got := readSummaries(t, chats)
	if want := []string{filepath.Base(kept)}; !slices.Equal(got, want) {
		t.Errorf("summaries kept of %v, want only %v", got, want)
	}
}

// A file renamed over a session file, of its size and time, is another
// file: read anew.
func TestExpireReadsAFileReplacedWithTheSameSizeAndTime(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows' FileInfo has no file number: a file there is told by its size and time")
	}
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	path := writeSession61(t, chats, "c3333333-aaaa-4aaa-8aaa-000000000003", now.Add(-time.Hour), "hello")
	age(t, path)
	expireNow(t, s, now)
	if got := readSummaries(t, chats); len(got) != 1 {
		t.Fatalf("summaries of %v, want the file's", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, bytes.Replace(data, []byte(`"type":"user"`), []byte(`"type":"info"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if res := expireNow(t, s, now); res.Deleted != 1 || exists(path) {
		t.Errorf("the replaced file was judged by the old one's summary: %+v", res)
	}
}

// A summaries file that is not one (of another version, too large, cut
// short, a directory) is no summaries: every file is read. Each holds
// (but the directory) a summary that would keep a file with nothing to
// resume, which the same summary in a usable file does keep.
func TestExpireIgnoresSummariesItCannotUse(t *testing.T) {
	for name, tc := range map[string]struct {
		make func(path string, usable []byte) error
		kept bool
	}{
		"usable": {func(p string, b []byte) error { return os.WriteFile(p, b, 0o600) }, true},
		"another version": {func(p string, b []byte) error {
			return os.WriteFile(p, bytes.Replace(b, []byte("summaries 3\n"), []byte("summaries 99\n"), 1), 0o600)
		}, false},
		"too large": {func(p string, b []byte) error {
			return os.WriteFile(p, append(b, bytes.Repeat([]byte(" "), summariesLimit)...), 0o600)
		}, false},
		"cut short":   {func(p string, b []byte) error { return os.WriteFile(p, b[:len(b)-1], 0o600) }, false},
		"a directory": {func(p string, _ []byte) error { return os.Mkdir(p, 0o700) }, false},
	} {
		t.Run(name, func(t *testing.T) {
			s, root := sharedStore(t)
			chats := projectChats(t, s, root)
			now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
			empty := writeSession61(t, chats, "d4444444-aaaa-4aaa-8aaa-000000000004", now, "")
			fresh := writeSession61(t, chats, "e5555555-aaaa-4aaa-8aaa-000000000005", now, "hi")
			age(t, empty, fresh)
			fi, err := os.Stat(empty)
			if err != nil {
				t.Fatal(err)
			}
			sums := &summaries{files: map[string]cachedSummary{}, at: time.Now()}
			sums.put(filepath.Base(empty), fi, summary{header: header{SessionID: "d4444444-aaaa-4aaa-8aaa-000000000004", StartTime: isoTime(now), LastUpdated: isoTime(now)}, resumable: true}, "")
			usable := sums.encode()
			if err := tc.make(filepath.Join(chats, summariesName), usable); err != nil {
				t.Fatal(err)
			}
			res := expireNow(t, s, now)
			if exists(empty) != tc.kept || !exists(fresh) || res.Scanned != 2 {
				t.Errorf("result %+v; the file with nothing to resume kept: %v, want %v; the other kept: %v", res, exists(empty), tc.kept, exists(fresh))
			}
		})
	}
}

// readSummaries lists the files chats' summaries file holds summaries of.
func readSummaries(t *testing.T, chats string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chats, summariesName))
	if err != nil {
		t.Fatal(err)
	}
	files, ok := parseSummaries(string(data))
	if !ok {
		t.Fatalf("the summaries file does not parse:\n%s", data)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// A file modified within the racy window of its reading is kept with its
// content's digest, and its summary used only while its content is as
// it was: a change of the same size in the same tick of the file
// system's clock would not show in its stat.
func TestSummariesCheckAFileModifiedJustBeforeByItsContent(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	recent := writeSession61(t, chats, "f6666666-aaaa-4aaa-8aaa-000000000006", now, "now")
	older := writeSession61(t, chats, "f7777777-aaaa-4aaa-8aaa-000000000007", now, "before")
	age(t, older)
	// After the reading began (a clock a little ahead of ours), so within
	// the window however long the machine takes to get there.
	setModTime(t, time.Now().Add(time.Minute), recent)
	expireNow(t, s, now)
	sums := loadSummaries(chats)
	if e := sums.files[filepath.Base(older)]; e.SessionID == "" || e.Digest != "" {
		t.Errorf("the older file's summary: %+v, want one without a digest", e)
	}
	e := sums.files[filepath.Base(recent)]
	if e.SessionID == "" || e.Digest == "" {
		t.Fatalf("the file modified just before: %+v, want its summary kept with its content's digest", e)
	}

	// Kept while unchanged: a file with nothing to resume is removed on
	// the strength of its summary, after its content was checked.
	lie := e
	lie.Resumable = false
	sums.files[filepath.Base(recent)] = lie
	sums.changed = true
	sums.save(zap.NewNop())
	expireNow(t, s, now)
	if exists(recent) {
		t.Fatal("the summary of a file unchanged in content was not used")
	}

	// Changed in the same tick, to the same size: read again.
	recent = writeSession61(t, chats, "f6666666-aaaa-4aaa-8aaa-000000000006", now, "now")
	setModTime(t, time.Now().Add(time.Minute), recent)
	expireNow(t, s, now)
	sums = loadSummaries(chats)
	e = sums.files[filepath.Base(recent)]
	lie = e
	lie.Resumable = false
	sums.files[filepath.Base(recent)] = lie
	sums.changed = true
	sums.save(zap.NewNop())
	data, err := os.ReadFile(recent)
	if err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, recent, bytes.Replace(data, []byte(`"text":"now"`), []byte(`"text":"NOW"`), 1))
	expireNow(t, s, now)
	if !exists(recent) {
		t.Fatal("a file changed in content behind an unchanged stat was judged by its old summary")
	}

	// Out of the window, checked once more, then kept without a digest.
	age(t, recent)
	expireNow(t, s, now)
	if e := loadSummaries(chats).files[filepath.Base(recent)]; e.SessionID == "" || e.Digest != "" {
		t.Errorf("the file once out of the window: %+v, want its summary without a digest", e)
	}
}

// How long a file stays racy follows the tick of its file system's
// clock, read from its time: a time in whole seconds (FAT, ext3, HFS+)
// two seconds, a finer one a tenth of a second. So a script starting
// gemini-ls again and again does not have each start read again every
// session file of the last two seconds.
func TestRacyWindowFollowsTheClocksTick(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	fine := writeSession61(t, chats, "f1111111-aaaa-4aaa-8aaa-000000000001", now, "fine")
	coarse := writeSession61(t, chats, "f2222222-aaaa-4aaa-8aaa-000000000002", now, "coarse")
	start := time.Now()
	// A quarter past a second, 0.25 to 1.25 s before: out of the fine
	// window, and fine whatever a file system keeps of it (Windows: 100 ns).
	fineTime := start.Add(-500 * time.Millisecond).Truncate(time.Second).Add(250 * time.Millisecond)
	// A whole second at least 0.3 s and at most 1.3 s before: out of the
	// fine window, in the coarse one.
	coarseTime := start.Truncate(time.Second)
	if start.Sub(coarseTime) < 300*time.Millisecond {
		coarseTime = coarseTime.Add(-time.Second)
	}
	setModTime(t, fineTime, fine)
	setModTime(t, coarseTime, coarse)
	expireNow(t, s, now)
	sums := loadSummaries(chats)
	if e := sums.files[filepath.Base(fine)]; e.SessionID == "" || e.Digest != "" {
		t.Errorf("a file modified %v before, in fractions of a second: %+v, want its summary kept without a digest", start.Sub(fineTime), e)
	}
	if e := sums.files[filepath.Base(coarse)]; e.SessionID == "" || e.Digest == "" {
		t.Errorf("a file modified %v before, in whole seconds: %+v, want its summary kept with its content's digest", start.Sub(coarseTime), e)
	}
}

// setModTime sets the modification time of paths to at.
func setModTime(t *testing.T, at time.Time, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// A large file read whole by a list within the racy window is not kept
// with a digest: clean-up, which reads such a file by its ends, would
// read it whole to check one.
func TestSummariesKeepNoDigestOfALargeFile(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Now()
	const id = "f8888888-aaaa-4aaa-8aaa-000000000008"
	path := filepath.Join(chats, sharedName(id, now))
	at := isoTime(now)
	data := `{"sessionId":"` + id + `","projectHash":"h","startTime":"` + at + `","lastUpdated":"` + at + `","kind":"main"}` + "\n" +
		`{"id":"u1","type":"user","content":[{"text":"survey"}]}` + "\n" +
		`{"id":"g1","type":"gemini","content":[{"text":"` + strings.Repeat("x", 2*wholeReadLimit) + `"}]}` + "\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if list, err := s.ListShared(context.Background(), ""); err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if e, ok := loadSummaries(chats).files[filepath.Base(path)]; ok {
		t.Errorf("a large file read within the racy window was kept: %+v", e)
	}
}

// A session whose first prompt is a few pasted megabytes is listed by
// its first 80 characters, and 0.61's display name of it by its first
// 1,000: the listing sent to an editor's picker and kept in the summaries
// stays small, and the summaries file under its limit, keeping it.
func TestHugeFirstPromptListedBounded(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	huge := writeSession61(t, chats, "f9999999-aaaa-4aaa-8aaa-000000000009", now, strings.Repeat(`pasted\n`, summariesLimit/8+1))
	small := writeSession61(t, chats, "fa000000-aaaa-4aaa-8aaa-00000000000a", now, "hello")
	age(t, huge, small)
	list, err := s.ListShared(context.Background(), "")
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	byID := map[string]Meta{}
	for _, m := range list {
		byID[m.ID] = m
	}
	long := byID["f9999999-aaaa-4aaa-8aaa-000000000009"]
	if want := strings.Repeat("pasted ", 12)[:TitleRunes-1] + "…"; long.Title != want {
		t.Errorf("title %q, want %q", long.Title, want)
	}
	if n := utf8.RuneCountInString(long.DisplayName); n != DisplayNameRunes || !strings.HasPrefix(long.DisplayName, "pasted pasted ") || !strings.HasSuffix(long.DisplayName, "…") {
		t.Errorf("display name of %d characters: %.40q…%q", n, long.DisplayName, long.DisplayName[max(0, len(long.DisplayName)-20):])
	}
	if m := byID["fa000000-aaaa-4aaa-8aaa-00000000000a"]; m.Title != "hello" || m.DisplayName != "hello" {
		t.Errorf("the small session listed as %q, %q", m.Title, m.DisplayName)
	}
	sums := loadSummaries(chats).files
	for _, f := range []string{huge, small} {
		if e, ok := sums[filepath.Base(f)]; !ok || e.Listed == "" {
			t.Errorf("%s's listing is not kept: %+v, %v", filepath.Base(f), e, ok)
		}
	}
	cache, err := os.Stat(filepath.Join(chats, summariesName))
	if err != nil {
		t.Fatal(err)
	}
	if cache.Size() > 16<<10 {
		t.Errorf("the summaries file holds %d bytes", cache.Size())
	}
	again, err := s.ListShared(context.Background(), "")
	if err != nil || !slices.EqualFunc(again, list, func(a, b Meta) bool { return a.ID == b.ID && a.Title == b.Title && a.DisplayName == b.DisplayName }) {
		t.Errorf("listed again as %+v, %v", again, err)
	}
}

// A list reads only the files changed since they were last read (by a
// list or a clean-up), and shows what it showed of the others: a first
// prompt rewritten behind an unchanged stat still shows as it was, and
// once the file grows, as it is.
func TestListReadsOnlyTheFilesChangedSince(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	path := writeSession61(t, chats, "a8888888-aaaa-4aaa-8aaa-000000000008", now.Add(-time.Hour), "hello")
	age(t, path)
	names := func() []string {
		t.Helper()
		list, err := s.ListShared(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range list {
			out = append(out, m.DisplayName)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"hello"}) {
		t.Fatalf("first list: %v", got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, path, bytes.Replace(data, []byte(`"text":"hello"`), []byte(`"text":"HELLO"`), 1))
	if got := names(); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("the file unchanged to a stat was read again: %v", got)
	}
	grow(t, path)
	if got := names(); !slices.Equal(got, []string{"HELLO"}) {
		t.Errorf("the grown file was not read again: %v", got)
	}
}

// What a list shows of a session is the same read from the file and
// from its kept summary: every field of each Meta, for sessions of
// gemini-ls's (prompts, model, mode, title) and 0.61's.
func TestListShowsTheSameFromSummaries(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= 2; i++ {
		id := NewID()
		for p := 1; p <= i; p++ {
			m := sharedMeta(root, id, p)
			m.Mode, m.Model = "auto_edit", "gemini-2.5-pro"
			mustAppend(t, s, Turn{Meta: m, History: sharedHistory(p)})
		}
	}
	writeSession61(t, chats, "a9999999-aaaa-4aaa-8aaa-000000000009", now.Add(-time.Hour), "from 0.61")
	entries, err := os.ReadDir(chats)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		paths = append(paths, filepath.Join(chats, e.Name()))
	}
	age(t, paths...)
	for _, list := range []func(context.Context, string) ([]Meta, error){s.List, s.ListShared} {
		fresh, err := list(context.Background(), "")
		if err != nil || len(fresh) != 3 {
			t.Fatalf("list: %d sessions, %v", len(fresh), err)
		}
		if got := readSummaries(t, chats); len(got) != 3 {
			t.Fatalf("summaries of %v, want the three files'", got)
		}
		kept, err := list(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(kept, fresh) {
			t.Errorf("from summaries\n%+v\nfrom the files\n%+v", kept, fresh)
		}
		if err := os.Remove(filepath.Join(chats, summariesName)); err != nil {
			t.Fatal(err)
		}
	}
}

// A session file's own text goes into its summary's fields. One that
// holds a tab or a line's end would break the summaries file's line: its
// summary is not kept (the file is read at each start, as without
// summaries), and the others' still are, one whose prompt holds them
// too (its listing is JSON).
func TestSummariesKeepNoFieldThatWouldBreakALine(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := isoTime(now.Add(-time.Hour))
	odd := filepath.Join(chats, sharedName("c3333333-aaaa-4aaa-8aaa-000000000003", now))
	text := `{"sessionId":"c3333333-aaaa-4aaa-8aaa-000000000003","projectHash":"h","startTime":"` + at + `","lastUpdated":"` + at + `","kind":"main\n\tx"}` + "\n" +
		`{"id":"u1","timestamp":"` + at + `","type":"user","content":[{"text":"hi"}]}` + "\n"
	if err := os.WriteFile(odd, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	titled := writeSession61(t, chats, "d4444444-aaaa-4aaa-8aaa-000000000004", now.Add(-time.Hour), `tab\there\nand a line`)
	age(t, odd, titled)
	for range 2 {
		if res := expireNow(t, s, now); res.Deleted != 0 || res.Scanned != 2 {
			t.Fatalf("clean-up %+v", res)
		}
		if got, want := readSummaries(t, chats), []string{filepath.Base(titled)}; !slices.Equal(got, want) {
			t.Fatalf("summaries kept of %v, want %v", got, want)
		}
	}
	for range 2 { // from the file, then from its summary
		list, err := s.ListShared(context.Background(), "")
		if err != nil || len(list) != 2 {
			t.Fatalf("listed %+v, %v", list, err)
		}
		titles := []string{list[0].Title, list[1].Title}
		if !slices.Contains(titles, "tab here and a line") { // a title's spaces made one
			t.Errorf("titles %q", titles)
		}
	}
}

// A listing kept that does not decode (the file damaged where its lines
// still parse) is no summary for a list: the file is read again.
func TestListReadsAFileWhoseKeptListingIsDamaged(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	path := writeSession61(t, chats, "e5555555-aaaa-4aaa-8aaa-000000000005", now.Add(-time.Hour), "hello")
	age(t, path)
	if list, err := s.ListShared(context.Background(), ""); err != nil || len(list) != 1 {
		t.Fatalf("first list: %+v, %v", list, err)
	}
	sums := filepath.Join(chats, summariesName)
	data, err := os.ReadFile(sums)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Replace(data, []byte(`"title":"hello"`), []byte(`"title":"hello`), 1)
	if bytes.Equal(damaged, data) {
		t.Fatalf("no title in the summaries:\n%s", data)
	}
	if err := os.WriteFile(sums, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := parseSummaries(string(damaged)); !ok {
		t.Fatal("the damaged file no longer parses: the test would not test a damaged listing")
	}
	list, err := s.ListShared(context.Background(), "")
	if err != nil || len(list) != 1 || list[0].Title != "hello" {
		t.Fatalf("listed %+v, %v", list, err)
	}
	if again, _ := os.ReadFile(sums); !bytes.Equal(again, data) {
		t.Errorf("the summaries were not mended:\n%s", again)
	}
}

// Version 2's summaries, JSON, are read when this version's are not
// there yet, so that the first start after an update reads no session
// file again; they go when this version's are written. The summary
// here would keep a file with nothing to resume, which a read of the
// file would remove.
func TestTheJSONSummariesAreReadOnceThenGo(t *testing.T) {
	s, root := sharedStore(t)
	chats := projectChats(t, s, root)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const id = "f6666666-aaaa-4aaa-8aaa-000000000006"
	empty := writeSession61(t, chats, id, now.Add(-time.Hour), "")
	age(t, empty)
	fi, err := os.Stat(empty)
	if err != nil {
		t.Fatal(err)
	}
	at := isoTime(now.Add(-time.Hour))
	v2 := fmt.Sprintf(`{"v":2,"files":{%q:{"size":%d,"mtime":%d,"ino":%d,"sessionId":%q,"startTime":%q,"lastUpdated":%q,"kind":"main","resumable":true,`+
		`"listed":{"meta":{"id":%q,"title":"from version 2","prompts":1},"displayName":"from version 2"}}}}`,
		filepath.Base(empty), fi.Size(), fi.ModTime().UnixNano(), inode(fi), id, at, at, id)
	old := filepath.Join(chats, oldSummariesName)
	if err := os.WriteFile(old, []byte(v2), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := expireNow(t, s, now); res.Deleted != 0 || !exists(empty) {
		t.Fatalf("version 2's summary was not used: %+v", res)
	}
	if exists(old) || !exists(filepath.Join(chats, summariesName)) {
		t.Errorf("version 2's summaries kept: %v; this version's written: %v", exists(old), exists(filepath.Join(chats, summariesName)))
	}
	list, err := s.ListShared(context.Background(), "")
	if err != nil || len(list) != 1 || list[0].Title != "from version 2" {
		t.Errorf("listed from the summaries %+v, %v", list, err)
	}
}

// Whatever the summaries file holds, reading it refuses it or gives
// summaries that are written back as they were read.
func FuzzSummaries(f *testing.F) {
	c := &summaries{files: map[string]cachedSummary{
		"session-a.jsonl": {Size: 12, ModTime: 1795742048462480098, Inode: 7, SessionID: "a", StartTime: "2026-11-24T12:00:00.000Z", Kind: "main", Resumable: true, Listed: `{"meta":{"title":"t"}}`},
		"session-b.jsonl": {Size: 3, Digest: "abc"},
	}}
	f.Add(string(c.encode()))
	f.Add(summariesHeader)
	f.Add(summariesHeader + "x\t1\t2\t3\t\t\t\t\t0\t\t\n")
	f.Fuzz(func(t *testing.T, data string) {
		files, ok := parseSummaries(data)
		if !ok {
			return
		}
		again := (&summaries{files: files}).encode()
		back, ok := parseSummaries(string(again))
		if !ok || !maps.Equal(back, files) {
			t.Fatalf("%q read as %+v, written as %q, read back as %+v (%v)", data, files, again, back, ok)
		}
	})
}
