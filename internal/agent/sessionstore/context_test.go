package sessionstore

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// The session context a conversation's requests begin with is saved
// once, with the prompt it was made for, and read back from then on:
// after prompts that do not carry it, across a rewrite that does, and
// not for a session with no history left. In a shared file it is in
// gemini-ls's record, which Gemini CLI 0.61 does not read: the messages
// 0.61 reads are the prompts as before, none a <session_context>.
func TestTheSessionContextIsSavedOnce(t *testing.T) {
	const first, second = "<session_context>\nToday is Saturday.\n</session_context>", "<session_context>\nToday is Sunday.\n</session_context>"
	for name, open := range recordingStores(t) {
		t.Run(name, func(t *testing.T) {
			s, m := open()
			ctx := context.Background()
			r, err := s.Begin(ctx, Begin{Meta: m, Prompt: "one", History: []*genai.Content{userText("one")}, Context: first})
			if err != nil {
				t.Fatal(err)
			}
			mustRecord(t, r, Step{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "1"}}}})
			if err := r.Commit(ctx, Turn{Meta: m}); err != nil {
				t.Fatal(err)
			}
			m.Prompts = 2
			mustAppend(t, s, Turn{Meta: m, History: []*genai.Content{userText("two"), {Role: genai.RoleModel, Parts: []*genai.Part{{Text: "2"}}}}})
			if got := mustLoad(t, s, m.ID).Context; got != first {
				t.Errorf("after two prompts the context is %q, want %q", got, first)
			}
			raw, err := os.ReadFile(sessionPath(t, s, m))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(raw), "Today is Saturday"); n != 1 {
				t.Errorf("the file holds the context %d times, want once", n)
			}
			if name == "shared" {
				checkNoContextMessage(t, raw)
			}

			snap := mustLoad(t, s, m.ID)
			snap.Context = second
			if err := s.Replace(ctx, snap); err != nil {
				t.Fatal(err)
			}
			if got := mustLoad(t, s, m.ID).Context; got != second {
				t.Errorf("after a rewrite the context is %q, want %q", got, second)
			}
			snap.History, snap.Exchanges = nil, nil
			if err := s.Replace(ctx, snap); err != nil {
				t.Fatal(err)
			}
			if got := mustLoad(t, s, m.ID).Context; got != "" {
				t.Errorf("with no history left the context is %q, want none", got)
			}
		})
	}
}

// checkNoContextMessage fails when a line of a shared file is a message
// (as 0.61 reads one) whose text is a session context.
func checkNoContextMessage(t *testing.T, raw []byte) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec struct {
			Messages []message `json:"messages"`
			message
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		for _, m := range append(rec.Messages, rec.message) {
			if strings.Contains(string(m.Content), "session_context") {
				t.Errorf("a message 0.61 reads holds the session context: %s", line)
			}
		}
	}
}
