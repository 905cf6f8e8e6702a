package sessionstore

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
)

// bigText is a prompt of n bytes.
func bigText(n int) string { return strings.Repeat("a huge prompt ", n/14+1)[:n] }

// sessionSize is the size of session m's file.
func sessionSize(t *testing.T, s *Store, m Meta) int64 {
	t.Helper()
	fi, err := os.Stat(sessionPath(t, s, m))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A prompt recorded as it happens is written once in a shared file, in
// its message: the begin line's running prompt and the end line's
// exchange name that message rather than repeat its text, and Load
// gives the transcript the prompt back, ended or interrupted.
func TestARecordedPromptIsStoredOnce(t *testing.T) {
	const size = 1 << 20
	for _, ended := range []bool{true, false} {
		s, root := sharedStore(t)
		m := sharedMeta(root, NewID(), 1)
		ctx := context.Background()
		text := bigText(size)
		r, err := s.Begin(ctx, Begin{Meta: m, Prompt: text, History: []*genai.Content{userText(text)}})
		if err != nil {
			t.Fatal(err)
		}
		mustRecord(t, r, Step{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Read."}}}, Model: "gemini-2.5-pro"})
		if ended {
			if err := r.Commit(ctx, Turn{Meta: m, Exchange: &Exchange{Prompt: text, Answer: "Read.", StopReason: "end_turn"}}); err != nil {
				t.Fatal(err)
			}
		} else {
			r.Close()
		}
		if got, limit := sessionSize(t, s, m), int64(size*12/10); got > limit {
			t.Errorf("ended %v: the session file is %d bytes for a %d-byte prompt, over %d: stored more than once", ended, got, size, limit)
		}
		snap, err := s.Load(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Exchanges) != 1 || snap.Exchanges[0].Prompt != text || snap.Exchanges[0].Answer != "Read." {
			t.Fatalf("ended %v: %d exchanges; the first's prompt of %d bytes, want %d", ended, len(snap.Exchanges), len(snap.Exchanges[0].Prompt), size)
		}
		if len(snap.History) == 0 || !textIs(snap.History[0], text) {
			t.Errorf("ended %v: the history does not start with the prompt", ended)
		}
	}
}

// A prompt saved whole (Append) is written once too; a prompt whose
// message holds more than what the user typed (an attached file) keeps
// its typed text in its exchange.
func TestAnAppendedPromptIsStoredOnce(t *testing.T) {
	const size = 1 << 20
	s, root := sharedStore(t)
	m := sharedMeta(root, NewID(), 1)
	ctx := context.Background()
	text := bigText(size)
	model := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Read."}}}
	if err := s.Append(ctx, Turn{Meta: m, History: []*genai.Content{userText(text), model}, Exchange: &Exchange{Prompt: text, Answer: "Read."}}); err != nil {
		t.Fatal(err)
	}
	if got, limit := sessionSize(t, s, m), int64(size*12/10); got > limit {
		t.Errorf("the session file is %d bytes for a %d-byte prompt, over %d", got, size, limit)
	}
	m.Prompts = 2
	attached := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "and this"}, {Text: "\n--- file.go ---\npackage main\n"}}}
	if err := s.Append(ctx, Turn{Meta: m, History: []*genai.Content{attached, model}, Exchange: &Exchange{Prompt: "and this", Answer: "Read."}}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Exchanges) != 2 || snap.Exchanges[0].Prompt != text || snap.Exchanges[1].Prompt != "and this" {
		t.Errorf("exchanges: %d; prompts of %d and %q", len(snap.Exchanges), len(snap.Exchanges[0].Prompt), snap.Exchanges[len(snap.Exchanges)-1].Prompt)
	}
}

// encodeLine's bytes are json.Marshal's, a newline after, whatever the
// contents hold: HTML characters and line separators (escaped), other
// Unicode, calls and their results, an empty message.
func TestEncodeLineIsJSONMarshal(t *testing.T) {
	history := []*genai.Content{
		userText("<b>a & b</b> \u2028 \u2029 é 😀 \"quoted\" \\ \n\t"),
		callsContent("read_file", "glob"),
		results("read_file", "glob"),
		{Role: genai.RoleModel},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "done <ok>", ThoughtSignature: []byte{0, 1, 2}}}},
	}
	line := promptLine{SessionID: "s", ProjectHash: "h", LastUpdated: "t", Messages: messagesOf(history, "m", time.Unix(0, 0), Usage{TotalTokens: 3}),
		LS: lsRecord{V: sharedVersion, Step: stepEnd, Exchange: &Exchange{Prompt: "<p>", Answer: "a"}}}
	want, err := json.Marshal(line)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if string(bytes.Join(got, nil)) != string(want)+"\n" {
		t.Errorf("encodeLine:\n%s\njson.Marshal:\n%s", got, want)
	}
}

// A line holding a huge content does not copy it: its content is not
// encoded again inside the line (that cost three copies more), nor
// joined with the rest of the line (one more), but written in turn.
func TestEncodeLineDoesNotCopyAContent(t *testing.T) {
	const size = 8 << 20
	line := promptLine{SessionID: "s", ProjectHash: "h", Messages: messagesOf([]*genai.Content{userText(bigText(size))}, "m", time.Unix(0, 0), Usage{})}
	runtime.GC() // empties encoding/json's pool of buffers
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, err := encodeLine(line)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > size/8 {
		t.Errorf("encoding a line of %d bytes allocated %d", sizeOf(b), allocated)
	}
}

// A huge content's message is encoded as json.Marshal encodes its parts,
// its long texts made at their final size, copied once: json.Marshal
// copied them three times over.
func TestMessageOfAHugeTextCopiesItOnce(t *testing.T) {
	const size = 8 << 20
	text := strings.Repeat("<b>a & b</b> \u2028 é 😀 \"quoted\" \\ \n\t", size/40)
	parts := []*genai.Part{{Text: "short <one>"}, {Text: text}, {Text: text, Thought: true}, {Text: text[:longText-1]}, {Text: "not UTF-8 \xff" + text}}
	want, err := json.Marshal(parts)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageOf(&genai.Content{Role: genai.RoleUser, Parts: parts}, "id", "m", time.Unix(0, 0)); string(got.Content) != string(want) {
		t.Errorf("the content of a message of long texts is not json.Marshal's (%d bytes, want %d)", len(got.Content), len(want))
	}
	one := []*genai.Part{{Text: text}}
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := messageOf(&genai.Content{Role: genai.RoleUser, Parts: one}, "id", "m", time.Unix(0, 0))
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(m.Content))*5/4 {
		t.Errorf("a message of %d bytes allocated %d", len(m.Content), allocated)
	}
}
