package sessionstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"
)

// placePrompt records one whole prompt of session m (m.Prompts its
// number) through place, as the agent does.
func placePrompt(t *testing.T, s *Store, m Meta, place *Place, text string) {
	t.Helper()
	ctx := context.Background()
	r, err := s.Begin(ctx, Begin{Meta: m, Prompt: text, History: []*genai.Content{userText(text)}, Place: place})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, r, Step{Content: callsContent("glob")})
	mustRecord(t, r, Step{Content: results("glob")})
	answer := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "done: " + text}}}
	mustRecord(t, r, Step{Content: answer})
	if err := r.Commit(ctx, Turn{Meta: m, Exchange: &Exchange{Prompt: text, Answer: "done: " + text}}); err != nil {
		t.Fatal(err)
	}
}

func fileHolds(t *testing.T, path, text string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), text)
}

// A session's next prompts go to the file its first one opened, which
// they do not look for again: a second file that a search would find
// first (a copy of the session's, named before it) gets nothing.
func TestBeginOpensTheKeptFileWithoutLookingForIt(t *testing.T) {
	s, root := sharedStore(t)
	id := NewID()
	place := NewPlace(true)
	placePrompt(t, s, sharedMeta(root, id, 1), place, "first")
	s.Wait()
	files := chatsFiles(t, s)
	if len(files) != 1 {
		t.Fatalf("files after the first prompt: %v", files)
	}
	kept := files[0]
	decoy := filepath.Join(filepath.Dir(kept), sharedPrefix+"0000-"+id[:8]+sharedExt)
	data, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(decoy, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if found, err := s.findShared(filepath.Dir(kept), id); err != nil || found != decoy {
		t.Fatalf("findShared = %q, %v; the test wants it to find the copy %q first", found, err, decoy)
	}
	placePrompt(t, s, sharedMeta(root, id, 2), place, "second")
	s.Wait()
	if !fileHolds(t, kept, "done: second") {
		t.Error("the second prompt is not in the session's file")
	}
	if fileHolds(t, decoy, "done: second") {
		t.Error("the second prompt went to the file a search finds: the kept one was looked for again")
	}
}

// A file removed underneath (deleted, cleaned up) or replaced (a rewrite
// renamed over it, by this process or another) between two prompts is
// noticed: the next prompt goes where it went before anything was kept
// (a new file, the rewritten one), and the session loads whole.
func TestBeginNoticesTheKeptFileRemovedOrReplaced(t *testing.T) {
	for _, underneath := range []string{"removed", "replaced"} {
		t.Run(underneath, func(t *testing.T) {
			s, root := sharedStore(t)
			id := NewID()
			place := NewPlace(true)
			placePrompt(t, s, sharedMeta(root, id, 1), place, "first")
			s.Wait()
			path := chatsFiles(t, s)[0]
			switch underneath {
			case "removed":
				if err := s.Delete(id); err != nil {
					t.Fatal(err)
				}
			case "replaced":
				snap := mustLoad(t, s, id)
				snap.Exchanges[0].Answer = "rewritten"
				if err := s.Replace(context.Background(), snap); err != nil {
					t.Fatal(err)
				}
			}
			placePrompt(t, s, sharedMeta(root, id, 2), place, "second")
			s.Wait()
			if files := chatsFiles(t, s); len(files) != 1 || files[0] != path {
				t.Fatalf("files after the second prompt: %v, want %s alone", files, path)
			}
			got := mustLoad(t, s, id)
			var answers []string
			for _, ex := range got.Exchanges {
				answers = append(answers, ex.Answer)
			}
			want := map[string]string{"removed": "done: second", "replaced": "rewritten|done: second"}[underneath]
			if strings.Join(answers, "|") != want {
				t.Errorf("answers loaded: %q, want %q", answers, want)
			}
			if underneath == "removed" && !fileHolds(t, path, `"sessionId"`) {
				t.Error("the file made again has no header")
			}
		})
	}
}

// The records of prompts through a kept place are synced as before: each
// prompt's file fsynced once its end is written.
func TestKeptPlaceKeepsTheFsyncs(t *testing.T) {
	s, root := sharedStore(t)
	var mu sync.Mutex
	synced := 0
	s.durable.sync = func(f *os.File) error {
		mu.Lock()
		defer mu.Unlock()
		synced++
		return f.Sync()
	}
	id := NewID()
	place := NewPlace(true)
	for i, text := range []string{"first", "second", "third"} {
		placePrompt(t, s, sharedMeta(root, id, i+1), place, text)
		s.Wait()
		mu.Lock()
		n := synced
		mu.Unlock()
		if n < i+1 {
			t.Errorf("after prompt %d: %d fsyncs", i+1, n)
		}
	}
}

// A fresh place's first prompt creates the session's file without
// looking for one: a file naming the session found in the directory is
// not one it can have (its id is new), and gets nothing.
func TestAFreshPlaceIsNotLookedFor(t *testing.T) {
	s, root := sharedStore(t)
	id := NewID()
	m := sharedMeta(root, id, 1)
	chats, err := s.chats(root, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	head, err := headerLine(m, root)
	if err != nil {
		t.Fatal(err)
	}
	decoy := filepath.Join(chats, sharedPrefix+"0000-"+id[:8]+sharedExt)
	if err := os.WriteFile(decoy, head, 0o600); err != nil {
		t.Fatal(err)
	}
	placePrompt(t, s, m, NewPlace(true), "first")
	s.Wait()
	if fileHolds(t, decoy, "done: first") {
		t.Error("a fresh session's first prompt went to a file found by looking")
	}
	if !fileHolds(t, freshPath(chats, m), "done: first") {
		t.Error("a fresh session's first prompt is not in its new file")
	}
}
