package sessionstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// fileModes is whether the system keeps a file's permission bits: not
// Windows, where 0o600 and 0o700 mean nothing (a file is 0o666, a
// directory 0o777, to os.Stat).
const fileModes = runtime.GOOS != "windows"

func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := New(filepath.Join(t.TempDir(), "sessions"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func meta(id string, prompts int) Meta {
	return Meta{
		ID: id, Root: "/work/project", Title: "fix the parser", Model: "gemini-2.5-pro",
		Created: t0, Updated: t0.Add(time.Duration(prompts) * time.Minute), Prompts: prompts,
	}
}

// richHistory is one prompt's history with every kind of part a session
// holds: text, a thought with its signature, a function call and its
// response, inline data.
func richHistory(n int) []*genai.Content {
	return []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: fmt.Sprintf("prompt %d: read main.go\nand fix it", n)}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "thinking about it", Thought: true, ThoughtSignature: []byte{0, 1, 2, 0xff, byte(n)}},
			{FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "read_file", Args: map[string]any{"path": "main.go", "limit": 10.0}}, ThoughtSignature: []byte("sig\x00\n")},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "call-1", Name: "read_file", Response: map[string]any{"output": "package main\n", "lines": []any{1.0, 2.0}}}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "Here is a picture </script> \u2028 of it."},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, '\n', byte(n)}}},
		}},
	}
}

func mustAppend(t testing.TB, s *Store, turn Turn) {
	t.Helper()
	if err := s.Append(context.Background(), turn); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t testing.TB, s *Store, id string) Snapshot {
	t.Helper()
	snap, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRoundTripOfEveryKindOfPart(t *testing.T) {
	s := newStore(t)
	turn := Turn{Meta: meta("S1", 1), History: richHistory(1), Allow: []string{"shell:git"}, Usage: Usage{PromptTokens: 100, CandidatesTokens: 20, ThoughtsTokens: 5, TotalTokens: 125}}
	mustAppend(t, s, turn)

	got := mustLoad(t, s, "S1")
	want := Snapshot{Meta: turn.Meta, History: turn.History, Allow: turn.Allow, Usage: turn.Usage, Saved: len(turn.History)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded\n%s\nwant\n%s", jsonOf(t, got), jsonOf(t, want))
	}
	if sig := got.History[1].Parts[1].ThoughtSignature; string(sig) != "sig\x00\n" {
		t.Errorf("thought signature = %q", sig)
	}

	fi, err := os.Stat(filepath.Join(s.Dir(), "S1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !fileModes {
		return
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode = %v, want 0600", perm)
	}
	di, err := os.Stat(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if perm := di.Mode().Perm(); perm != 0o700 {
		t.Errorf("directory mode = %v, want 0700", perm)
	}
}

func TestSeveralAppendsReplayInOrder(t *testing.T) {
	s := newStore(t)
	allows := [][]string{{"edit"}, nil, {"shell:go", "edit"}}
	var wantHistory []*genai.Content
	for i := 1; i <= 3; i++ {
		h := richHistory(i)
		wantHistory = append(wantHistory, h...)
		mustAppend(t, s, Turn{Meta: meta("S1", i), History: h, Allow: allows[i-1], Usage: Usage{PromptTokens: int64(10 * i), TotalTokens: int64(11 * i)}})
	}
	got := mustLoad(t, s, "S1")
	if !reflect.DeepEqual(got.History, wantHistory) {
		t.Fatalf("history\n%s\nwant\n%s", jsonOf(t, got.History), jsonOf(t, wantHistory))
	}
	if want := []string{"edit", "shell:go"}; !reflect.DeepEqual(got.Allow, want) {
		t.Errorf("allow = %q, want %q", got.Allow, want)
	}
	if want := (Usage{PromptTokens: 60, TotalTokens: 66}); got.Usage != want {
		t.Errorf("usage = %+v, want %+v", got.Usage, want)
	}
	if want := meta("S1", 3); got.Meta != want {
		t.Errorf("meta = %+v, want the last prompt's %+v", got.Meta, want)
	}
	lines := readLines(t, filepath.Join(s.Dir(), "S1.jsonl"))
	if len(lines) != 7 {
		t.Errorf("the file has %d lines, want a header and 2 per prompt: 7", len(lines))
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s does not end with a newline: %q", path, b[max(0, len(b)-40):])
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func appendRaw(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// A torn last line (an append cut short by a crash) is ignored, and the
// next append cuts it off. (A whole line is kept: see
// TestAPromptLineWithoutItsMetaIsKept.)
func TestInterruptedAppendIsIgnoredAndRepaired(t *testing.T) {
	prompt3, err := encode(record{Kind: kindPrompt, History: richHistory(3), Usage: &Usage{TotalTokens: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	meta3, err := encodeMeta(meta("S1", 3))
	if err != nil {
		t.Fatal(err)
	}
	for name, tail := range map[string][]byte{
		"torn prompt line":         prompt3[:len(prompt3)/2],
		"torn meta line":           meta3[:len(meta3)-1],
		"zeros after a power loss": make([]byte, 300),
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			for i := 1; i <= 2; i++ {
				mustAppend(t, s, Turn{Meta: meta("S1", i), History: richHistory(i), Usage: Usage{TotalTokens: 1}})
			}
			path := filepath.Join(s.Dir(), "S1.jsonl")
			before := mustLoad(t, s, "S1")
			appendRaw(t, path, tail)

			if got := mustLoad(t, s, "S1"); !reflect.DeepEqual(got, before) {
				t.Fatalf("after an interrupted append, loaded\n%s\nwant what was committed\n%s", jsonOf(t, got), jsonOf(t, before))
			}
			metas, err := s.List(context.Background(), "")
			if err != nil || len(metas) != 1 || metas[0].ID != "S1" {
				t.Fatalf("List = %+v, %v; want S1 still listed", metas, err)
			}

			mustAppend(t, s, Turn{Meta: meta("S1", 3), History: richHistory(4), Usage: Usage{TotalTokens: 1}})
			got := mustLoad(t, s, "S1")
			want := append(append([]*genai.Content{}, before.History...), richHistory(4)...)
			if !reflect.DeepEqual(got.History, want) || got.Usage.TotalTokens != 3 || got.Meta.Prompts != 3 {
				t.Fatalf("after the next append, loaded %d contents, usage %+v, meta %+v; want %d contents, 3 tokens, 3 prompts", len(got.History), got.Usage, got.Meta, len(want))
			}
			for i, line := range readLines(t, path) {
				if !json.Valid([]byte(line)) {
					t.Fatalf("line %d of the repaired file is not JSON: %.60q", i+1, line)
				}
			}
		})
	}
}

// A prompt line whose meta line never made it is whole: it is kept, as
// Gemini CLI keeps every whole line, and the next append follows it.
func TestAPromptLineWithoutItsMetaIsKept(t *testing.T) {
	s := newStore(t)
	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1), Usage: Usage{TotalTokens: 1}})
	prompt2, err := encode(record{Kind: kindPrompt, History: richHistory(2), Usage: &Usage{TotalTokens: 10}})
	if err != nil {
		t.Fatal(err)
	}
	appendRaw(t, filepath.Join(s.Dir(), "S1.jsonl"), prompt2)
	got := mustLoad(t, s, "S1")
	if want := append(richHistory(1), richHistory(2)...); !reflect.DeepEqual(got.History, want) || got.Usage.TotalTokens != 11 || got.Interrupted {
		t.Fatalf("loaded %d contents, usage %+v, interrupted %v; want both prompts' %d, 11 tokens", len(got.History), got.Usage, got.Interrupted, len(want))
	}
	mustAppend(t, s, Turn{Meta: meta("S1", 3), History: richHistory(3), Usage: Usage{TotalTokens: 100}})
	if got := mustLoad(t, s, "S1"); len(got.History) != 3*len(richHistory(1)) || got.Usage.TotalTokens != 111 || got.Meta.Prompts != 3 {
		t.Fatalf("after the next append: %d contents, usage %+v, meta %+v", len(got.History), got.Usage, got.Meta)
	}
}

func TestCorruptionInTheMiddleIsAnError(t *testing.T) {
	s := newStore(t)
	for i := 1; i <= 3; i++ {
		mustAppend(t, s, Turn{Meta: meta("S1", i), History: richHistory(i)})
	}
	path := filepath.Join(s.Dir(), "S1.jsonl")
	lines := readLines(t, path)
	lines[3] = lines[3][:len(lines[3])/2] // the second prompt's line
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	_, err := s.Load(context.Background(), "S1")
	var corrupt *CorruptError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &corrupt) || corrupt.Line != 4 {
		t.Fatalf("Load = %v; want a CorruptError at line 4", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("the error %q does not name the file and line", err)
	}
}

func TestReplaceRewritesTheWholeSession(t *testing.T) {
	s := newStore(t)
	for i := 1; i <= 3; i++ {
		mustAppend(t, s, Turn{Meta: meta("S1", i), History: richHistory(i), Allow: []string{fmt.Sprint("k", i)}, Usage: Usage{TotalTokens: 100}})
	}
	compressed := Snapshot{
		Meta: meta("S1", 3),
		History: []*genai.Content{
			{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "<state_snapshot>work so far</state_snapshot>"}}},
			{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Got it.", ThoughtSignature: []byte{9, 9}}}},
		},
		Allow: []string{"k1", "k2", "k3"},
		Usage: Usage{TotalTokens: 300},
		Saved: 2,
	}
	if err := s.Replace(context.Background(), compressed); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad(t, s, "S1"); !reflect.DeepEqual(got, compressed) {
		t.Fatalf("after Replace, loaded\n%s\nwant\n%s", jsonOf(t, got), jsonOf(t, compressed))
	}

	mustAppend(t, s, Turn{Meta: meta("S1", 4), History: richHistory(4), Allow: []string{"k4"}, Usage: Usage{TotalTokens: 100}})
	got := mustLoad(t, s, "S1")
	want := append(append([]*genai.Content{}, compressed.History...), richHistory(4)...)
	if !reflect.DeepEqual(got.History, want) || !reflect.DeepEqual(got.Allow, []string{"k1", "k2", "k3", "k4"}) || got.Usage.TotalTokens != 400 {
		t.Fatalf("an append after Replace loaded %d contents, allow %q, usage %+v", len(got.History), got.Allow, got.Usage)
	}
	if n := len(readLines(t, filepath.Join(s.Dir(), "S1.jsonl"))); n != 5 {
		t.Errorf("the replaced file has %d lines; want header, replace, meta, prompt, meta", n)
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "S1.jsonl" {
			t.Errorf("Replace left %s behind", e.Name())
		}
	}
	fi, err := os.Stat(filepath.Join(s.Dir(), "S1.jsonl"))
	if err != nil || fileModes && fi.Mode().Perm() != 0o600 {
		t.Errorf("the replaced file: %v, %v; want mode 0600", fi.Mode(), err)
	}
}

// A replace record stands for the whole session up to it, wherever it is:
// what came before it is dropped, not added to.
func TestReplaceRecordResetsWhatCameBefore(t *testing.T) {
	s := newStore(t)
	for i := 1; i <= 2; i++ {
		mustAppend(t, s, Turn{Meta: meta("S1", i), History: richHistory(i), Allow: []string{"old"}, Usage: Usage{TotalTokens: 100}})
	}
	replaced := []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "<state_snapshot/>"}}}}
	rep, err := encode(record{Kind: kindReplace, History: replaced, Allow: []string{"new"}, Usage: &Usage{TotalTokens: 7}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := encodeMeta(meta("S1", 3))
	appendRaw(t, filepath.Join(s.Dir(), "S1.jsonl"), append(rep, m...))

	got := mustLoad(t, s, "S1")
	if !reflect.DeepEqual(got.History, replaced) || !reflect.DeepEqual(got.Allow, []string{"new"}) || got.Usage.TotalTokens != 7 {
		t.Fatalf("after a replace record, loaded %d contents, allow %q, usage %+v; want only the replacement", len(got.History), got.Allow, got.Usage)
	}
}

func TestUnknownSessionIsErrNotFound(t *testing.T) {
	s := newStore(t)
	_, err := s.Load(context.Background(), "nope")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("Load of an unknown id = %v; want ErrNotFound naming it", err)
	}
	if err := s.Delete("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete of an unknown id = %v; want ErrNotFound", err)
	}

	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1)})
	if err := s.Delete("S1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(context.Background(), "S1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load after Delete = %v; want ErrNotFound", err)
	}

	// A file whose first save was cut short holds no session.
	path := filepath.Join(s.Dir(), "S2.jsonl")
	header, _ := encodeMeta(meta("S2", 1))
	if err := os.WriteFile(path, header, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(context.Background(), "S2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of a header-only file = %v; want ErrNotFound", err)
	}
	if metas, err := s.List(context.Background(), ""); err != nil || len(metas) != 0 {
		t.Fatalf("List = %+v, %v; want the header-only file left out", metas, err)
	}
	mustAppend(t, s, Turn{Meta: meta("S2", 1), History: richHistory(1)})
	if got := mustLoad(t, s, "S2"); len(got.History) != 4 {
		t.Fatalf("after appending to a header-only file, loaded %d contents, want 4", len(got.History))
	}
}

func TestInvalidIDsNeverNameAFile(t *testing.T) {
	s := newStore(t)
	outside := filepath.Dir(s.Dir())
	for _, id := range []string{"", "../x", "..", "a/b", `a\b`, "x.y", "a b", "é", strings.Repeat("a", MaxIDLength+1)} {
		ctx := context.Background()
		if err := s.Append(ctx, Turn{Meta: meta(id, 1), History: richHistory(1)}); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Append(%q) = %v; want ErrInvalidID", id, err)
		}
		if err := s.Replace(ctx, Snapshot{Meta: meta(id, 1)}); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Replace(%q) = %v; want ErrInvalidID", id, err)
		}
		if _, err := s.Load(ctx, id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Load(%q) = %v; want ErrInvalidID", id, err)
		}
		if err := s.Delete(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Delete(%q) = %v; want ErrInvalidID", id, err)
		}
	}
	entries, _ := os.ReadDir(outside)
	for _, e := range entries {
		if e.Name() != "sessions" {
			t.Errorf("a file was written outside the session directory: %s", e.Name())
		}
	}
	for _, id := range []string{"a", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0-9_a", strings.Repeat("z", MaxIDLength)} {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v; want nil", id, err)
		}
	}
}

func TestListNewestFirstAndByRoot(t *testing.T) {
	s := newStore(t)
	if metas, err := s.List(context.Background(), ""); err != nil || metas != nil {
		t.Fatalf("List before any save = %+v, %v; want nothing, no error", metas, err)
	}
	add := func(id, root string, updated time.Time) {
		m := meta(id, 1)
		m.Root, m.Updated = root, updated
		mustAppend(t, s, Turn{Meta: m, History: richHistory(1)})
	}
	// Files are written in an order different from their updated times:
	// the list follows the metadata.
	add("B", "/p/one", t0.Add(3*time.Hour))
	add("A", "/p/two", t0.Add(5*time.Hour))
	add("C", "/p/one", t0.Add(2*time.Hour))
	m := meta("B", 2)
	m.Root, m.Updated, m.Title = "/p/one", t0.Add(4*time.Hour), "renamed"
	mustAppend(t, s, Turn{Meta: m, History: richHistory(2)})

	ids := func(root string) string {
		metas, err := s.List(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range metas {
			out = append(out, m.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(""); got != "A,B,C" {
		t.Errorf("List = %s; want A,B,C (newest updated first)", got)
	}
	if got := ids("/p/one/"); got != "B,C" {
		t.Errorf("List(/p/one/) = %s; want B,C", got)
	}
	if got := ids("/p/three"); got != "" {
		t.Errorf("List(/p/three) = %s; want none", got)
	}
	metas, _ := s.List(context.Background(), "/p/one")
	if metas[0].Title != "renamed" || metas[0].Prompts != 2 {
		t.Errorf("List shows %+v; want B's latest metadata", metas[0])
	}
}

func TestListConsidersOnlyTheNewestFiles(t *testing.T) {
	s := newStore(t)
	s.maxListed = 2
	for i, id := range []string{"old", "mid", "new"} {
		m := meta(id, 1)
		m.Updated = t0 // equal: the file times decide which are considered
		mustAppend(t, s, Turn{Meta: m, History: richHistory(1)})
		mod := t0.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(s.Dir(), id+".jsonl"), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	metas, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) != 2 || metas[0].ID != "mid" || metas[1].ID != "new" {
		t.Fatalf("List = %+v; want only the 2 most recently modified, mid and new", metas)
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r interface {
		ReadAt([]byte, int64) (int, error)
	}
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

func TestListDoesNotReadAHugeLastLine(t *testing.T) {
	s := newStore(t)
	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1)})
	m := meta("S1", 2)
	m.Title = "later title"
	mustAppend(t, s, Turn{Meta: m, History: richHistory(2)})
	path := filepath.Join(s.Dir(), "S1.jsonl")
	// A crash came between an 8 MiB prompt line and its meta line: the
	// file ends in a complete line too long to be a meta line.
	huge, err := encode(record{Kind: kindPrompt, History: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: strings.Repeat("x", 8<<20)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	appendRaw(t, path, huge)
	mod := t0.Add(48 * time.Hour)
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	counting := &countingReaderAt{r: f}
	line, err := lastLine(counting, fi.Size())
	if err != nil || line != nil {
		t.Fatalf("lastLine = %.40q, %v; want no line", line, err)
	}
	if bound := int64(maxMetaLine + 2*tailChunk); counting.n > bound {
		t.Fatalf("lastLine read %d bytes of an 8 MiB last line; want at most %d", counting.n, bound)
	}

	metas, err := s.List(context.Background(), "")
	if err != nil || len(metas) != 1 {
		t.Fatalf("List = %+v, %v; want S1 listed from its header", metas, err)
	}
	if got := metas[0]; got.ID != "S1" || got.Title != "fix the parser" || !got.Updated.Equal(mod) {
		t.Errorf("List shows %+v; want the header's metadata dated by the file's time %v", got, mod)
	}
}

func TestFilesAreBounded(t *testing.T) {
	s := newStore(t)
	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1)})
	path := filepath.Join(s.Dir(), "S1.jsonl")
	if err := os.Truncate(path, MaxFileSize+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	if _, err := s.Load(context.Background(), "S1"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Load of a file over the limit = %v; want ErrTooLarge", err)
	}
	if err := s.Append(context.Background(), Turn{Meta: meta("S1", 2)}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Append to a file over the limit = %v; want ErrTooLarge", err)
	}

	m := meta("S2", 1)
	m.Title = strings.Repeat("t", maxMetaLine)
	if err := s.Append(context.Background(), Turn{Meta: m}); err == nil || !strings.Contains(err.Error(), "metadata") {
		t.Errorf("Append with a 64 KiB title = %v; want an error about the metadata's size", err)
	}
}

func TestConcurrentAppendsToDifferentSessions(t *testing.T) {
	s := newStore(t)
	const sessions, prompts = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, sessions*prompts)
	for i := range sessions {
		wg.Go(func() {
			id := fmt.Sprint("S", i)
			for p := 1; p <= prompts; p++ {
				if err := s.Append(context.Background(), Turn{Meta: meta(id, p), History: richHistory(p), Usage: Usage{TotalTokens: 1}}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() { // a reader listing meanwhile
		for range 20 {
			if _, err := s.List(context.Background(), ""); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range sessions {
		got := mustLoad(t, s, fmt.Sprint("S", i))
		if len(got.History) != 4*prompts || got.Usage.TotalTokens != prompts || got.Meta.Prompts != prompts {
			t.Errorf("session %d: %d contents, usage %d, %d prompts; want %d, %d, %d", i, len(got.History), got.Usage.TotalTokens, got.Meta.Prompts, 4*prompts, prompts, prompts)
		}
	}
}

func TestEveryLineIsOneRecord(t *testing.T) {
	s := newStore(t)
	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1)})
	f, err := os.Open(filepath.Join(s.Dir(), "S1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var kinds []string
	for sc.Scan() {
		var rec record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, rec.Kind)
	}
	if got := strings.Join(kinds, ","); got != "meta,prompt,meta" {
		t.Errorf("records = %s; want meta,prompt,meta", got)
	}
}

func TestDefaultDir(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	// abs is the absolute path p names on this system: on a drive on
	// Windows, where "/state" is not absolute.
	abs := func(p string) string {
		if runtime.GOOS == "windows" {
			p = "C:" + p
		}
		return filepath.FromSlash(p)
	}
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": abs("/state"), "HOME": abs("/home/u")}, "/state/gemini-ls/sessions"},
		{platformtest.HomeVars(map[string]string{"XDG_STATE_HOME": "relative"}, abs("/home/u")), "/home/u/.local/state/gemini-ls/sessions"},
		{platformtest.HomeVars(map[string]string{}, abs("/home/u")), "/home/u/.local/state/gemini-ls/sessions"},
		{map[string]string{}, ""},
	} {
		want := tc.want
		if want != "" {
			want = abs(want)
		}
		if got := DefaultDir(env(tc.vars)); got != want {
			t.Errorf("DefaultDir(%v) = %q, want %q", tc.vars, got, tc.want)
		}
	}
	if _, err := New("", nil); err == nil {
		t.Error("New(\"\") succeeded; want an error for a relative directory")
	}
}

// The transcript the user saw is kept beside the history, and survives a
// compression that rewrites the history.
func TestExchangesAreKeptThroughReplace(t *testing.T) {
	s := newStore(t)
	one := Exchange{Prompt: "fix the bug", Answer: "Fixed.", StopReason: "end_turn"}
	two := Exchange{Prompt: "and the test", Answer: "Added.", StopReason: "end_turn"}
	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1), Exchange: &one})
	mustAppend(t, s, Turn{Meta: meta("S1", 2), History: richHistory(2), Exchange: &two})
	got := mustLoad(t, s, "S1")
	if !reflect.DeepEqual(got.Exchanges, []Exchange{one, two}) {
		t.Fatalf("exchanges = %+v", got.Exchanges)
	}
	got.History = got.History[len(got.History)-1:]
	if err := s.Replace(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	if again := mustLoad(t, s, "S1"); !reflect.DeepEqual(again.Exchanges, []Exchange{one, two}) || len(again.History) != 1 {
		t.Fatalf("after Replace: exchanges %+v, %d contents", again.Exchanges, len(again.History))
	}
}

// The journal of file changes keeps a file's exact bytes, a BOM, CRLF and
// bytes that are not UTF-8 included, through Append and Replace.
func TestFileEditsKeepExactBytes(t *testing.T) {
	s := newStore(t)
	ex := Exchange{Prompt: "edit", Files: []FileEdit{
		{Path: "/w/a.txt", Existed: true, Before: []byte("\ufeffone\r\ntwo\r\n\xff\xfe"), After: []byte("\ufeffONE\r\n")},
		{Path: "/w/new.txt", After: []byte("new\n")},
		{Path: "/w/big.bin", Unjournaled: "too large"},
	}}
	mustAppend(t, s, Turn{Meta: meta("S1", 1), History: richHistory(1), Exchange: &ex})
	got := mustLoad(t, s, "S1")
	if !reflect.DeepEqual(got.Exchanges, []Exchange{ex}) {
		t.Fatalf("exchanges = %+v", got.Exchanges)
	}
	if err := s.Replace(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	if again := mustLoad(t, s, "S1"); !reflect.DeepEqual(again.Exchanges, []Exchange{ex}) {
		t.Fatalf("after Replace: exchanges %+v", again.Exchanges)
	}
}
