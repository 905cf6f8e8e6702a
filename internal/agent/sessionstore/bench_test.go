package sessionstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
)

// benchPrompt is one prompt's history of about 20 KB: the user's text, a
// function call, a 16 KB tool result, and the model's answer.
func benchPrompt(n int) []*genai.Content {
	return []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: fmt.Sprintf("prompt %d: %s", n, strings.Repeat("explain this code ", 50))}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "read_file", Args: map[string]any{"path": "internal/big.go"}}, ThoughtSignature: make([]byte, 512)}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "read_file", Response: map[string]any{"output": strings.Repeat("func f() { return \"x\" }\n", 680)}}}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: strings.Repeat("The function returns x. ", 100)}}},
	}
}

const benchPrompts = 200

// BenchmarkAppend is one prompt saved (encode, write, fsync) to a session
// already holding 200 prompts.
func BenchmarkAppend(b *testing.B) {
	s := newStore(b)
	h := benchPrompt(0)
	for i := 1; i <= benchPrompts; i++ {
		mustAppend(b, s, Turn{Meta: meta("bench", i), History: h})
	}
	line, _ := encode(record{Kind: kindPrompt, History: h, Usage: &Usage{}})
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	for i := range b.N {
		mustAppend(b, s, Turn{Meta: meta("bench", benchPrompts+1+i), History: h, Usage: Usage{TotalTokens: 1}})
	}
}

// BenchmarkLoad replays a session of 200 prompts of about 20 KB each.
func BenchmarkLoad(b *testing.B) {
	s := newStore(b)
	for i := 1; i <= benchPrompts; i++ {
		mustAppend(b, s, Turn{Meta: meta("bench", i), History: benchPrompt(i)})
	}
	snap := mustLoad(b, s, "bench")
	if len(snap.History) != 4*benchPrompts {
		b.Fatalf("loaded %d contents", len(snap.History))
	}
	size := fileSize(b, s, "bench")
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		if _, err := s.Load(context.Background(), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList lists 50 sessions of 200 prompts each: the tails only.
func BenchmarkList(b *testing.B) {
	s := newStore(b)
	h := benchPrompt(0)
	for n := range 50 {
		for i := 1; i <= benchPrompts; i++ {
			mustAppend(b, s, Turn{Meta: meta(fmt.Sprint("S", n), i), History: h})
		}
	}
	b.ResetTimer()
	for range b.N {
		metas, err := s.List(context.Background(), "")
		if err != nil || len(metas) != 50 {
			b.Fatal(len(metas), err)
		}
	}
}

func fileSize(b *testing.B, s *Store, id string) int64 {
	b.Helper()
	f, fi, err := openRead(filepath.Join(s.Dir(), id+ext), id)
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return fi.Size()
}

// BenchmarkRecord is one record of a running prompt (Recorder.Record)
// written to a shared session file: in turn a model answer calling a
// tool and the tool's 16 KB result, as a tool turn records them. Its
// fsyncs run off the writer's path, coalesced, and are waited for
// outside the timing.
func BenchmarkRecord(b *testing.B) {
	s, root := sharedStore(b)
	m := sharedMeta(root, NewID(), 1)
	h := benchPrompt(0)
	r, err := s.Begin(context.Background(), Begin{Meta: m, Prompt: "bench", History: h[:1]})
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for _, c := range h[1:3] {
		line, _ := json.Marshal(messageOf(c, NewID(), "gemini-2.5-pro", t0))
		size += len(line) + 1
	}
	b.SetBytes(int64(size / 2))
	b.ResetTimer()
	for i := range b.N {
		if err := r.Record(Step{Content: h[1+i%2], Model: "gemini-2.5-pro"}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	r.Close()
	s.Wait()
}

// savedSessions61 fills root's project with n sessions of 0.61's form,
// each a prompt, a 32 KB tool result and an answer, last modified an
// hour ago; it returns the project's chats directory.
func savedSessions61(b *testing.B, s *Store, root string, now time.Time, n int) string {
	chats := projectChats(b, s, root)
	result := strings.Repeat(`line of a file that was read\n`, 1100)
	then := time.Now().Add(-time.Hour)
	for i := range n {
		id := fmt.Sprintf("%08x-aaaa-4aaa-8aaa-000000000000", i)
		at := isoTime(now.Add(-time.Duration(i) * time.Minute))
		text := `{"sessionId":"` + id + `","projectHash":"h","startTime":"` + at + `","lastUpdated":"` + at + `","kind":"main"}` + "\n" +
			`{"id":"u1","timestamp":"` + at + `","type":"user","content":[{"text":"read the file"}]}` + "\n" +
			`{"id":"g1","timestamp":"` + at + `","type":"gemini","content":[{"functionCall":{"name":"read_file","args":{"file_path":"a.txt"}}}]}` + "\n" +
			`{"id":"u2","timestamp":"` + at + `","type":"user","content":[{"functionResponse":{"name":"read_file","response":{"output":"` + result + `"}}}]}` + "\n" +
			`{"id":"g2","timestamp":"` + at + `","type":"gemini","content":[{"text":"It is read."}]}` + "\n"
		path := filepath.Join(chats, sharedName(id, now))
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(path, then, then); err != nil {
			b.Fatal(err)
		}
	}
	return chats
}

// BenchmarkExpire is a start's clean-up of a project holding saved
// sessions (savedSessions61), none due for removal: "cold" reads every
// file of 100 (no summaries kept, as on the first start, or as 0.61 does
// at each), "warm" the summaries the last clean-up kept, the files
// unchanged, of 100 and of 1,000; "one-more" finds one session more at
// each clean-up, as each start of a script running gemini-ls again and
// again finds the last run's. BenchmarkListShared is a list of them,
// likewise.
func BenchmarkExpire(b *testing.B) {
	benchmarkSummaries(b, func(s *Store, now time.Time, n int) error {
		res, err := s.Expire(context.Background(), "", Retention{MaxAge: 30 * 24 * time.Hour}, now, func(string) (bool, bool) { return false, false })
		if err == nil && (res.Scanned != n || res.Deleted != 0) {
			err = fmt.Errorf("clean-up %+v of %d sessions", res, n)
		}
		return err
	})
}

func BenchmarkListShared(b *testing.B) {
	benchmarkSummaries(b, func(s *Store, _ time.Time, n int) error {
		list, err := s.ListShared(context.Background(), "")
		if err == nil && len(list) != min(n, MaxListed) {
			err = fmt.Errorf("listed %d sessions of %d", len(list), n)
		}
		return err
	})
}

func benchmarkSummaries(b *testing.B, read func(s *Store, now time.Time, sessions int) error) {
	for _, bc := range []struct {
		name     string
		sessions int
		cold     bool // the summaries removed before each read
		oneMore  bool // a session added before each read
	}{
		{name: "cold", sessions: 100, cold: true},
		{name: "warm", sessions: 100},
		{name: "warm-1000", sessions: 1000},
		{name: "one-more-1000", sessions: 1000, oneMore: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, root := sharedStore(b)
			now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
			chats := savedSessions61(b, s, root, now, bc.sessions)
			n := bc.sessions
			if err := read(s, now, n); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if bc.cold {
					if err := os.Remove(filepath.Join(chats, summariesName)); err != nil {
						b.Fatal(err)
					}
				}
				if bc.oneMore {
					b.StopTimer()
					id := fmt.Sprintf("%08x-bbbb-4bbb-8bbb-000000000000", n)
					at := isoTime(now)
					text := `{"sessionId":"` + id + `","projectHash":"h","startTime":"` + at + `","lastUpdated":"` + at + `","kind":"main"}` + "\n" +
						`{"id":"u1","timestamp":"` + at + `","type":"user","content":[{"text":"read the file"}]}` + "\n"
					if err := os.WriteFile(filepath.Join(chats, sharedName(id, now)), []byte(text), 0o600); err != nil {
						b.Fatal(err)
					}
					n++
					b.StartTimer()
				}
				if err := read(s, now, n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
