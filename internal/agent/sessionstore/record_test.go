package sessionstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/geminicli"
)

// craftedSession is a session file as 0.61 and gemini-ls write them and
// as a hand could leave it: CRLF and blank lines, a line that is not
// JSON, one 0.61 throws on (a null functionCall), a message replaced in
// its place, a rewind, the memory scratchpad's freshness, metadata with
// messages (gemini-ls's lines) and a last line without its newline;
// numbers and keys JavaScript writes in its own way.
func craftedSession(id string) string {
	return strings.Join([]string{
		`{"sessionId":"` + id + `","projectHash":"h1","startTime":"2026-01-02T03:04:05.006Z","lastUpdated":"2026-01-02T03:04:05.006Z","kind":"main"}` + "\r",
		`{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>hi</session_context>"}]}],"lastUpdated":"2026-01-02T03:04:06.000Z"}}`,
		``,
		`{"id":"u1","timestamp":"t","type":"user","content":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}`,
		`{"id":"g1","type":"gemini","content":"","thoughts":[{"subject":"S","description":"d"}],"model":"m"}`,
		`not json at all`,
		`{"id":"bad","type":"user","content":[{"functionCall":null}]}`,
		`{"id":"u2","type":"user","content":"Fix \u2028 the <bug> é \u0007","displayContent":[{"text":"Fix"}]}`,
		`{"id":"g1","type":"gemini","content":[{"text":"replaced in place"}],"args":{"b":1,"2":2,"1":1,"b":3},"tokens":{"input":1e21,"output":0.10,"cached":1.0,"tool":-0}}`,
		`{"$set":{"memoryScratchpad":{"notes":"x"},"summary":"A summary","directories":["/a","/b"]}}`,
		`{"id":"u3","type":"user","content":"/stats"}`,
		`{"$rewindTo":"u3"}`,
		`{"sessionId":"` + id + `","projectHash":"h1","lastUpdated":"2026-01-02T03:04:07.000Z","messages":[{"id":"g2","type":"gemini","content":[{"text":"from metadata"}],"toolCalls":[{"id":"c","name":"n","args":{}}]},7,{"id":5}],"$geminiLs":{"v":2}}`,
		`{"id":"u5","type":"user","content":"last line without newline"}`,
	}, "\n")
}

// rewoundSession rewinds to an id it does not hold (everything goes),
// then gets its messages from a metadata line; its first prompt is "".
func rewoundSession(id string) string {
	return strings.Join([]string{
		`{"sessionId":"` + id + `","projectHash":"h2","startTime":"2026-01-02T03:04:05.006Z","lastUpdated":"2026-01-02T03:04:05.006Z"}`,
		`{"id":"u1","type":"user","content":"first"}`,
		`{"$rewindTo":"nowhere"}`,
		`{"sessionId":"` + id + `","projectHash":"h2","messages":[{"id":"u2","type":"user","content":[{"inlineData":{}}]},{"id":"g","type":"gemini","content":[],"thoughts":[]}]}`,
		``,
	}, "\n")
}

// writeShared puts a session file named as 0.61 names it in the store's
// project.
func writeShared(t *testing.T, s *Store, id, content string) string {
	t.Helper()
	chats, err := s.chats(s.root, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(chats, "session-2026-01-02T03-04-"+id[:8]+".jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// exportScript is the heart of 0.61's /export-session
// (exportSessionCommand), with its own SessionSelector: the session
// resolved by id, written as it writes it, or its error as it words it.
const exportScript = `const [chunk, dir, id] = process.argv.slice(2);
const m = await import(chunk);
try {
  const { sessionData } = await new m.SessionSelector({ getProjectTempDir: () => dir }).resolveSession(id);
  process.stdout.write(JSON.stringify(sessionData, null, 2));
} catch (error) {
  process.stdout.write("error: " + error.message);
}
`

// geminiCLIExport is what 0.61's /export-session writes of session id
// in the store's project, or "error: " and its words.
func geminiCLIExport(t *testing.T, s *Store, id string) string {
	t.Helper()
	chunk := selectorChunk(t)
	project, err := s.chats(s.root, true)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "export.mjs")
	if err := os.WriteFile(script, []byte(exportScript), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, chunk, filepath.Dir(project), id)
	cmd.Env = geminicli.Env(t.TempDir(), "")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("0.61's SessionSelector: %v\n%s", err, out)
	}
	return string(out)
}

// selectorChunk is the chunk of 0.61's bundle that exports its
// SessionSelector class.
func selectorChunk(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(filepath.Dir(geminicli.JS(t)), "chunk-*.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte("\nvar SessionSelector = class ")) && bytes.Contains(b, []byte("\n  SessionSelector,\n")) {
			return f
		}
	}
	t.Fatalf("no chunk of Gemini CLI %s's bundle exports SessionSelector", geminicli.Version)
	return ""
}

// recordOrError is Record's bytes, or "error: " and its words.
func recordOrError(t *testing.T, s *Store, id string) string {
	t.Helper()
	data, err := s.Record(context.Background(), id)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("Record(%s): %v", id, err)
		}
		return "error: " + err.Error()
	}
	return string(data)
}

// Record writes what Gemini CLI 0.61's own code writes for the same
// file, byte for byte: a session gemini-ls saved (prompts and a
// compression), files shaped by hand to reach every rule of 0.61's
// reader, and the errors of a session it would not find (nothing to
// resume, a subagent's, none at all).
func TestRecordAsGeminiCLI(t *testing.T) {
	s, root := sharedStore(t)
	geminicli.JS(t) // skips (or fails under CI) without 0.61
	if got, want := recordOrError(t, s, "7b1c6f1e-0000-4000-8000-000000000000"), geminiCLIExport(t, s, "7b1c6f1e-0000-4000-8000-000000000000"); got != want {
		t.Errorf("no session at all: Record says %q, 0.61 %q", got, want)
	}

	ls := NewID()
	for i := 1; i <= 2; i++ {
		mustAppend(t, s, Turn{Meta: sharedMeta(root, ls, i), History: sharedHistory(i), Usage: Usage{PromptTokens: 10, TotalTokens: 12}})
	}
	compressed := Snapshot{Meta: sharedMeta(root, ls, 3), History: []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "<state_snapshot>the gist</state_snapshot>"}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Got it."}}},
	}}
	if err := s.Replace(context.Background(), compressed); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, Turn{Meta: sharedMeta(root, ls, 4), History: sharedHistory(4)})

	crafted, rewound, empty, subagent := NewID(), NewID(), NewID(), NewID()
	writeShared(t, s, crafted, craftedSession(crafted))
	writeShared(t, s, rewound, rewoundSession(rewound))
	writeShared(t, s, empty, `{"sessionId":"`+empty+`","projectHash":"h","startTime":"2026-01-02T03:04:05.006Z","lastUpdated":"2026-01-02T03:04:05.006Z"}`+"\n"+
		`{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>hi</session_context>"}]}]}}`+"\n")
	writeShared(t, s, subagent, `{"sessionId":"`+subagent+`","projectHash":"h","startTime":"2026-01-02T03:04:05.006Z","lastUpdated":"2026-01-02T03:04:05.006Z","kind":"subagent"}`+"\n"+
		`{"id":"u","type":"user","content":"do it"}`+"\n")

	for name, id := range map[string]string{"gemini-ls's": ls, "crafted": crafted, "rewound": rewound, "empty": empty, "subagent's": subagent, "unknown": NewID()} {
		got, want := recordOrError(t, s, id), geminiCLIExport(t, s, id)
		if got != want {
			t.Errorf("%s session: Record wrote\n%s\n0.61 writes\n%s", name, got, want)
		}
	}
}

// Without 0.61 to compare with, the record still holds what 0.61's
// does: its fields in its order, every message as written, nothing of
// gemini-ls's own record; an id with no file is ErrNotFound in 0.61's
// words.
func TestRecordOfASharedFile(t *testing.T) {
	s, _ := sharedStore(t)
	id := NewID()
	writeShared(t, s, id, craftedSession(id))
	data, err := s.Record(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for _, want := range []string{
		"{\n  \"sessionId\": \"" + id + "\",\n  \"projectHash\": \"h1\",\n  \"startTime\": \"2026-01-02T03:04:05.006Z\",\n  \"lastUpdated\": \"2026-01-02T03:04:07.000Z\",\n  \"summary\": \"A summary\",\n  \"memoryScratchpad\": {\n",
		"\"content\": \"Fix \u2028 the <bug> é \\u0007\",",
		"\"args\": {\n        \"1\": 1,\n        \"2\": 2,\n        \"b\": 3\n      }",
		"\"input\": 1e+21,\n        \"output\": 0.1,\n        \"cached\": 1,\n        \"tool\": 0\n",
		"\"messageCount\": 6,\n  \"userMessageCount\": 4,\n  \"memoryScratchpadIsStale\": true,\n  \"firstUserMessage\": \"Fix \u2028 the <bug> é \\u0007\",\n  \"hasResumableContent\": true\n}",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the record lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "$geminiLs") || strings.Contains(string(data), `"bad"`) {
		t.Errorf("the record holds what 0.61 leaves out:\n%s", data)
	}
	_, err = s.Record(context.Background(), NewID())
	if !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "Invalid session identifier ") {
		t.Errorf("Record of an id with no file: %v", err)
	}
}
