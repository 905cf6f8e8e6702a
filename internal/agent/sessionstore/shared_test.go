package sessionstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/sharedlock/locktest"
)

// sharedStore is a store sharing sessions with Gemini CLI: its ~/.gemini,
// the project root and the old directory.
func sharedStore(t testing.TB) (*Store, string) {
	t.Helper()
	home := t.TempDir()
	root := filepath.Join(t.TempDir(), "my-project")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	s, err := Open(Options{Dir: filepath.Join(home, ".local", "state", "gemini-ls", "sessions"), GeminiDir: filepath.Join(home, ".gemini"), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return s, root
}

// sharedHistory is one prompt's history as gemini-ls keeps it: no
// thought text (a signature-only part stands for it), a call with its
// signature and its response, inline data.
func sharedHistory(n int) []*genai.Content {
	h := richHistory(n)
	h[1].Parts[0] = &genai.Part{ThoughtSignature: []byte{0, 1, 2, 0xff, byte(n)}}
	return h
}

func sharedMeta(root, id string, prompts int) Meta {
	m := meta(id, prompts)
	m.Root = root
	return m
}

func chatsFiles(t testing.TB, s *Store) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.gemini, "tmp", "*", "chats", "*"))
	return files
}

// A shared store saves in 0.61's place and name, 0600, and reads back
// exactly what it saved: history (signatures, calls, responses, inline
// data), approvals, usage, transcript.
func TestSharedRoundTrip(t *testing.T) {
	s, root := sharedStore(t)
	id := NewID()
	var want Snapshot
	for i := 1; i <= 2; i++ {
		ex := &Exchange{Prompt: "prompt", Answer: "answer", StopReason: "end_turn", Files: []FileEdit{{Path: "/a", Existed: true, Before: []byte("x"), After: []byte("y")}}}
		turn := Turn{Meta: sharedMeta(root, id, i), History: sharedHistory(i), Allow: []string{"shell:git"}, Usage: Usage{PromptTokens: 10, TotalTokens: 12}, Exchange: ex}
		mustAppend(t, s, turn)
		want.History = append(want.History, turn.History...)
		want.Exchanges = append(want.Exchanges, *ex)
	}
	files := chatsFiles(t, s)
	if len(files) != 1 || !regexp.MustCompile(`/tmp/my-project/chats/session-2026-11-22T10-00-`+id[:8]+`\.jsonl$`).MatchString(filepath.ToSlash(files[0])) {
		t.Fatalf("files = %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fileModes && fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v %v", fi.Mode(), err)
	}
	got := mustLoad(t, s, id)
	if !reflect.DeepEqual(got.History, want.History) {
		t.Errorf("history\n%s\nwant\n%s", jsonOf(t, got.History), jsonOf(t, want.History))
	}
	if got.Usage != (Usage{PromptTokens: 20, TotalTokens: 24}) || !reflect.DeepEqual(got.Allow, []string{"shell:git"}) || got.Meta.Prompts != 2 || got.Meta.Title != "fix the parser" || !got.Meta.Shared {
		t.Errorf("loaded %+v %+v %+v", got.Usage, got.Allow, got.Meta)
	}
	if len(got.Exchanges) != 2 || got.Exchanges[1].MessageID == "" || string(got.Exchanges[1].Files[0].After) != "y" {
		t.Errorf("exchanges = %+v", got.Exchanges)
	}
	list, err := s.ListShared(context.Background(), "")
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].DisplayName != "prompt 1: read main.go and fix it" {
		t.Errorf("list = %+v, %v", list, err)
	}
}

// A torn last line (a crash mid-write) is ignored by Load and cut off by
// the next Append; a bad line before the end is corruption.
func TestSharedTornAndCorruptLines(t *testing.T) {
	s, root := sharedStore(t)
	id := NewID()
	mustAppend(t, s, Turn{Meta: sharedMeta(root, id, 1), History: sharedHistory(1)})
	path := chatsFiles(t, s)[0]
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"sessionId":"` + id + `","projectHash":"x","messages":[{"id":"torn`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := mustLoad(t, s, id); len(got.History) != 4 {
		t.Fatalf("history after a torn write has %d contents", len(got.History))
	}
	mustAppend(t, s, Turn{Meta: sharedMeta(root, id, 2), History: sharedHistory(2)})
	if got := mustLoad(t, s, id); len(got.History) != 8 || got.Meta.Prompts != 2 {
		t.Fatalf("history after the next append has %d contents, %d prompts", len(got.History), got.Meta.Prompts)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "torn") {
		t.Errorf("the torn line is still there")
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = "not json\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	var corrupt *CorruptError
	if _, err := s.Load(context.Background(), id); !errors.As(err, &corrupt) || corrupt.Line != 2 {
		t.Errorf("loading a file with a bad middle line: %v", err)
	}
}

// A file 0.61 wrote (its context message, thoughts apart, a call's
// result both in toolCalls and in the user message after, tokens per
// response, a rewind) is read as 0.61 rebuilds it, each result once,
// thoughts left out.
func TestSharedReadsWhatGeminiCLIWrote(t *testing.T) {
	s, root := sharedStore(t)
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
	id := "6a7d3994-6649-496d-ac47-2e0e864697c4"
	file := `{"sessionId":"` + id + `","projectHash":"h","startTime":"2026-11-23T20:31:18.490Z","lastUpdated":"2026-11-23T20:31:18.490Z","kind":"main"}
{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>\nstuff</session_context>"}]}],"lastUpdated":"2026-11-23T20:31:18.491Z"}}
{"id":"u1","timestamp":"2026-11-23T20:31:18.578Z","type":"user","content":[{"text":"What is in a.txt?"}]}
{"id":"g1","type":"gemini","content":"","thoughts":[{"subject":"Reading","description":"the file"}],"tokens":{"input":118,"output":13,"cached":0,"thoughts":5,"tool":0,"total":136},"model":"gemini-2.5-pro"}
{"id":"g1","type":"gemini","content":"","thoughts":[{"subject":"Reading","description":"the file"}],"tokens":{"input":118,"output":13,"cached":0,"thoughts":5,"tool":0,"total":136},"model":"gemini-2.5-pro","toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"a.txt"},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"hello file\n"}}}],"status":"success"}]}
{"id":"r1","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"hello file\n"}}}]}
{"id":"g2","type":"gemini","content":"The file says hello.","thoughts":[],"tokens":{"input":161,"output":5,"cached":0,"thoughts":0,"tool":0,"total":166},"model":"gemini-2.5-pro"}
{"$set":{"lastUpdated":"2026-11-23T20:31:19.691Z"}}
{"id":"u2","type":"user","content":[{"text":"And then?"}]}
{"id":"g3","type":"gemini","content":"Nothing.","model":"gemini-2.5-pro"}
{"$rewindTo":"u2"}
{"some":"record 0.61 ignores"}
`
	if err := os.WriteFile(filepath.Join(chats, "session-2026-11-23T20-31-6a7d3994.jsonl"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, s, id)
	want := []*genai.Content{
		{Role: "user", Parts: []*genai.Part{{Text: "What is in a.txt?"}}},
		{Role: "model", Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "read_file", Args: map[string]any{"file_path": "a.txt"}}}}},
		{Role: "user", Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "read_file", Response: map[string]any{"output": "hello file\n"}}}}},
		{Role: "model", Parts: []*genai.Part{{Text: "The file says hello."}}},
	}
	if !reflect.DeepEqual(got.History, want) {
		t.Errorf("history\n%s\nwant\n%s", jsonOf(t, got.History), jsonOf(t, want))
	}
	if len(got.Exchanges) != 1 || got.Exchanges[0].Prompt != "What is in a.txt?" || got.Exchanges[0].Answer != "The file says hello." {
		t.Errorf("exchanges = %+v", got.Exchanges)
	}
	if got.Usage != (Usage{PromptTokens: 279, CandidatesTokens: 18, ThoughtsTokens: 5, TotalTokens: 302}) {
		t.Errorf("usage = %+v", got.Usage) // g3's, rewound, was spent too
	}
	if m := got.Meta; m.ID != id || m.Root != root || m.Title != "What is in a.txt?" || m.Prompts != 1 || m.Model != "gemini-2.5-pro" {
		t.Errorf("meta = %+v", m)
	}
}

// A session of the old directory moves to the shared place whole on its
// next prompt, and is listed once.
func TestSharedTakesOverAnOldSession(t *testing.T) {
	s, root := sharedStore(t)
	old, err := New(s.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, old, Turn{Meta: sharedMeta(root, "OLDSESSION", 1), History: sharedHistory(1), Allow: []string{"edit"}})
	if got := mustLoad(t, s, "OLDSESSION"); len(got.History) != 4 || got.Meta.Shared {
		t.Fatalf("the old session read through the shared store: %+v", got.Meta)
	}
	mustAppend(t, s, Turn{Meta: sharedMeta(root, "OLDSESSION", 2), History: sharedHistory(2)})
	got := mustLoad(t, s, "OLDSESSION")
	if len(got.History) != 8 || !got.Meta.Shared || !reflect.DeepEqual(got.Allow, []string{"edit"}) {
		t.Fatalf("after the move: %d contents, %+v, %v", len(got.History), got.Meta, got.Allow)
	}
	list, err := s.List(context.Background(), "")
	if err != nil || len(list) != 1 || !list[0].Shared {
		t.Errorf("list = %+v, %v", list, err)
	}
	if err := s.Delete("OLDSESSION"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(context.Background(), ""); len(list) != 0 {
		t.Errorf("after the delete: %+v", list)
	}
}

// After 0.61 resumes a session it records the model's messages with
// their parts (a thought's text among them); the thought's text is not
// sent back, its signature is.
func TestSharedLeavesThoughtTextOut(t *testing.T) {
	s, root := sharedStore(t)
	chats := filepath.Join(s.gemini, "tmp", "my-project", "chats")
	for _, base := range []string{"tmp", "history"} {
		dir := filepath.Join(s.gemini, base, "my-project")
		_ = os.MkdirAll(dir, 0o700)
		if err := os.WriteFile(filepath.Join(dir, ".project_root"), []byte(root), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.MkdirAll(chats, 0o700)
	id := "11111111-2222-4333-8444-555555555555"
	file := `{"sessionId":"` + id + `","projectHash":"h","startTime":"2026-11-23T20:31:18.490Z","kind":"main"}
{"$set":{"messages":[{"id":"u1","type":"user","content":[{"text":"hi"}]},{"id":"g1","type":"gemini","content":[{"text":"**Plan** it","thought":true},{"text":"signed","thought":true,"thoughtSignature":"c2ln"},{"functionCall":{"id":"c1","name":"ls","args":{}}}]},{"id":"r1","type":"user","content":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}]}]}}
`
	if err := os.WriteFile(filepath.Join(chats, "session-2026-11-23T20-31-11111111.jsonl"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, s, id)
	model := got.History[1].Parts
	if len(model) != 2 || model[0].Text != "" || model[0].Thought || string(model[0].ThoughtSignature) != "sig" || model[1].FunctionCall == nil {
		t.Errorf("model parts = %s", jsonOf(t, model))
	}
}

// A session's file rewritten (compressed, rewound) is rewritten under
// the lock of the files shared with Gemini CLI: a fresh <file>.lock
// directory is waited for, and one kept fresh for ever makes the
// rewrite give up with the file unchanged.
func TestSharedReplaceHonoursTheLock(t *testing.T) {
	s, root := sharedStore(t)
	id := NewID()
	mustAppend(t, s, Turn{Meta: sharedMeta(root, id, 1), History: sharedHistory(1)})
	path := chatsFiles(t, s)[0]
	snap := mustLoad(t, s, id)
	snap.History = snap.History[2:]
	locktest.Waits(t, path, func(ctx context.Context) error { return s.Replace(ctx, snap) })
	if got := mustLoad(t, s, id); !reflect.DeepEqual(got.History, snap.History) {
		t.Errorf("after the wait the session holds %d contents, want %d", len(got.History), len(snap.History))
	}
	snap.History = snap.History[1:]
	locktest.Refused(t, path, func(ctx context.Context) error { return s.Replace(ctx, snap) })
}
