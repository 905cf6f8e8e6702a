package sessionstore

import (
	"context"
	"os"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// The tokens the context cache served are written in the answer's
// message where 0.61 writes them ("cached"), and read back with the
// session.
func TestSharedFileKeepsCachedTokens(t *testing.T) {
	s, root := sharedStore(t)
	m := sharedMeta(root, NewID(), 1)
	ctx := context.Background()
	r, err := s.Begin(ctx, Begin{Meta: m, Prompt: "hi", History: []*genai.Content{userText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, r, Step{Content: callsContent("a"), Model: "gemini-2.5-pro", Usage: Usage{PromptTokens: 30, CachedTokens: 20, TotalTokens: 31}})
	mustRecord(t, r, Step{Content: results("a")})
	if err := r.Commit(ctx, Turn{Meta: m, Usage: Usage{PromptTokens: 30, CachedTokens: 20, TotalTokens: 31}, Exchange: &Exchange{Prompt: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(sessionPath(t, s, m)); !strings.Contains(string(b), `"tokens":{"input":30,"output":0,"cached":20,`) {
		t.Errorf("the answer's message lacks its cached tokens:\n%s", b)
	}
	snap, err := s.Load(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Usage.CachedTokens != 20 {
		t.Errorf("loaded usage = %+v, want 20 cached", snap.Usage)
	}
}
