package sessionstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"google.golang.org/genai"
)

// FuzzSessionFile: a session file, in either format, torn or corrupt
// anywhere, never panics a resume: Load, Record and List answer or say
// why not; a torn last line reads as the file without it (both
// formats); and a session that loads takes the next prompt and loads
// again with it, the torn line cut off.
//
//	go test -run '^$' -fuzz FuzzSessionFile ./internal/agent/sessionstore/
func FuzzSessionFile(f *testing.F) {
	ctx := context.Background()
	s, root := sharedStore(f)
	id := NewID()
	mustAppend(f, s, Turn{Meta: sharedMeta(root, id, 1), History: sharedHistory(1), Allow: []string{"shell:git"}, Usage: Usage{PromptTokens: 3},
		Exchange: &Exchange{Prompt: "p", Answer: "a", Files: []FileEdit{{Path: "/a", Existed: true, Before: []byte("x"), After: []byte("y")}}}})
	mustAppend(f, s, Turn{Meta: sharedMeta(root, id, 2), History: sharedHistory(2)})
	shared := chatsFiles(f, s)[0]
	sharedSeed, err := os.ReadFile(shared)
	if err != nil {
		f.Fatal(err)
	}
	old, err := New(s.dir, nil)
	if err != nil {
		f.Fatal(err)
	}
	mustAppend(f, old, Turn{Meta: meta(id, 1), History: richHistory(1)})
	legacy := filepath.Join(s.dir, id+".jsonl")
	legacySeed, err := os.ReadFile(legacy)
	if err != nil {
		f.Fatal(err)
	}
	gemini61 := `{"sessionId":"` + id + `","projectHash":"x","startTime":"2026-11-22T10:00:00.000Z","lastUpdated":"2026-11-22T10:01:00.000Z","kind":"main"}` + "\n" +
		`{"id":"m1","timestamp":"2026-11-22T10:00:01.000Z","type":"user","content":[{"text":"hi"}]}` + "\n" +
		`{"id":"m2","timestamp":"2026-11-22T10:00:02.000Z","type":"gemini","content":"yes","toolCalls":[{"id":"c1","name":"read_file","args":{},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]}],"tokens":{"input":1,"output":2,"total":3}}` + "\n" +
		`{"$set":{"lastUpdated":"2026-11-22T10:02:00.000Z"}}` + "\n" + `{"$rewindTo":"m2"}` + "\n"
	for _, seed := range [][]byte{sharedSeed, legacySeed, []byte(gemini61)} {
		f.Add(seed, false)
		f.Add(seed[:len(seed)/2], false)
		f.Add(append(bytes.Clone(seed), `{"torn`...), true)
		f.Add(bytes.Replace(seed, []byte("\n"), []byte("\nnot json\n"), 1), true)
	}
	// Load looks in the shared place first, so the legacy file is read
	// only when the shared one is gone.
	f.Fuzz(func(t *testing.T, data []byte, asLegacy bool) {
		path := shared
		if asLegacy {
			path = legacy
			os.Remove(shared)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)

		// A torn last line reads as the file without it.
		cut := data[:bytes.LastIndexByte(data, '\n')+1]
		if asLegacy {
			a, errA := replay(ctx, bytes.NewReader(data), path, id)
			b, errB := replay(ctx, bytes.NewReader(cut), path, id)
			if (errA == nil) != (errB == nil) || errA == nil && !reflect.DeepEqual(a, b) {
				t.Fatalf("replay of %q: %+v, %v; without its torn line: %+v, %v", data, a, errA, b, errB)
			}
		} else {
			a, errA := readShared(ctx, bytes.NewReader(data), path)
			b, errB := readShared(ctx, bytes.NewReader(cut), path)
			if (errA == nil) != (errB == nil) || errA == nil && !reflect.DeepEqual(a.snapshot(root), b.snapshot(root)) {
				t.Fatalf("readShared of %q: %v; without its torn line: %v", data, errA, errB)
			}
		}

		// Listed from the file, then from its summary: the same.
		then := time.Now().Add(-time.Hour)
		if err := os.Chtimes(path, then, then); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(filepath.Dir(shared), summariesName))
		fresh, err := s.List(ctx, root)
		if err != nil {
			t.Fatalf("List with %q: %v", data, err)
		}
		if kept, err := s.List(ctx, root); err != nil || !reflect.DeepEqual(kept, fresh) {
			t.Fatalf("List with %q from its summary: %+v, %v; from the file: %+v", data, kept, err, fresh)
		}
		s.Record(ctx, id)
		snap, err := s.Load(ctx, id)
		if err != nil {
			return
		}
		next := Turn{Meta: sharedMeta(root, id, snap.Meta.Prompts+1), History: []*genai.Content{
			{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "next prompt"}}},
			{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "next answer"}}},
		}}
		if err := s.Append(ctx, next); err != nil {
			t.Fatalf("Append after loading %q: %v", data, err)
		}
		again, err := s.Load(ctx, id)
		if err != nil {
			t.Fatalf("Load after an append to %q: %v", data, err)
		}
		if h := again.History; len(h) < 2 || !reflect.DeepEqual(h[len(h)-2:], next.History) {
			t.Fatalf("after an append to %q the history ends %s", data, jsonOf(t, h))
		}
		os.Remove(shared) // the append may have moved a legacy session there
	})
}
