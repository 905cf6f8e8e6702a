package sessionstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
