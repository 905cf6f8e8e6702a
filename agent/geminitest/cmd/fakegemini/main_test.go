package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"
)

// syncBuffer lets the test read what serve writes from another goroutine.
type syncBuffer struct {
	mu    sync.Mutex
	b     strings.Builder
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	close(s.wrote)
	return n, err
}

func TestServeScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "turns.json")
	err := os.WriteFile(script, []byte(`[
		{"chunks":[{"thought":true,"text":"**Plan** reading"},{"call":{"name":"read_file","args":{"path":"a.go"}}}]},
		{"text":"hello"}
	]`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{wrote: make(chan struct{})}
	done := make(chan error, 1)
	record := filepath.Join(t.TempDir(), "requests.jsonl")
	go func() { done <- serve(ctx, script, "127.0.0.1:0", record, out, t.Logf) }()
	<-out.wrote
	out.mu.Lock()
	line := out.b.String()
	out.mu.Unlock()
	base, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "GOOGLE_GEMINI_BASE_URL=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}

	// The environment variable is what the binary under test would read.
	t.Setenv("GOOGLE_GEMINI_BASE_URL", base)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Models.GenerateContent(ctx, "m", genai.Text("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := resp.FunctionCalls(); len(calls) != 1 || calls[0].Name != "read_file" || calls[0].Args["path"] != "a.go" {
		t.Errorf("calls = %v", calls)
	}
	resp, err = client.Models.GenerateContent(ctx, "m", genai.Text("hi"), nil)
	if err != nil || resp.Text() != "hello" {
		t.Fatalf("second answer = %v, %v", resp, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve = %v", err)
	}

	// --record kept both requests, as sent, one line each.
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("recorded %d lines: %s", len(lines), b)
	}
	for _, l := range lines {
		var r struct {
			Method, Model string
			Body          struct {
				Contents []*genai.Content `json:"contents"`
			}
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Method != "generateContent" || r.Model != "m" || len(r.Body.Contents) != 1 || r.Body.Contents[0].Parts[0].Text != "hi" {
			t.Errorf("recorded %s (%v)", l, err)
		}
	}
}

func TestServeRejectsBadScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "turns.json")
	if err := os.WriteFile(script, []byte(`[{"txt":"typo"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := serve(context.Background(), script, "127.0.0.1:0", "", io.Discard, t.Logf)
	if err == nil || !strings.Contains(err.Error(), `turn 1`) || !strings.Contains(err.Error(), `"txt"`) {
		t.Errorf("err = %v, want the bad field of turn 1 named", err)
	}
	if err := serve(context.Background(), "", "", "", io.Discard, t.Logf); err == nil || !strings.Contains(err.Error(), "--script") {
		t.Errorf("err = %v without --script", err)
	}
}
