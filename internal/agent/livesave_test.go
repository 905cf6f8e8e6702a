package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// A running prompt is on disk as it goes, whichever front end sends it
// (they all prompt through Session.Prompt): when the model gets its first
// request the prompt is saved, when it gets its second the call it asked
// for and its result are, each read by another store as another process
// would after a kill; the prompt's end is saved once, with its exchange.
func TestARunningPromptIsOnDiskAsItGoes(t *testing.T) {
	store := newStore(t)
	other, err := sessionstore.New(store.Dir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []sessionstore.Snapshot
	var id string
	look := func(then geminitest.Turn) geminitest.Turn {
		return geminitest.Turn{From: func(geminitest.Request) geminitest.Turn {
			snap, err := other.Load(context.Background(), id)
			if err != nil {
				t.Errorf("loading the running session: %v", err)
			}
			mu.Lock()
			seen = append(seen, snap)
			mu.Unlock()
			return then
		}}
	}
	srv := geminitest.NewTestServer(t, look(shellTurn("make")), look(geminitest.TextTurn("built")))
	sh := &shellTool{}
	ui := front{confirmer: always(dialog.ProceedOnce)}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Store: store})
	s := a.NewSession()
	id = s.ID()
	if res, _ := ui.prompt(t, s, "build it"); res.Text != "built" {
		t.Fatalf("prompt = %+v", res)
	}
	if len(seen) != 2 {
		t.Fatalf("the model saw %d requests", len(seen))
	}
	first, second := seen[0], seen[1]
	if len(first.History) != 2 || first.History[0].Parts[0].Text != "build it" || !first.Interrupted || first.Exchanges[0].Prompt != "build it" {
		t.Errorf("at the first request, the file holds %+v (history %d)", first, len(first.History))
	}
	// The prompt, the call, its result, and the note closing it there.
	if len(second.History) != 4 || second.History[1].Parts[0].FunctionCall == nil || second.History[2].Parts[0].FunctionResponse == nil ||
		second.History[2].Parts[0].FunctionResponse.Response["error"] != nil {
		t.Errorf("at the second request, the file holds %d contents: %+v", len(second.History), second.History)
	}
	done, err := other.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if done.Interrupted || len(done.History) != 4 || done.History[3].Role != genai.RoleModel || len(done.Exchanges) != 1 || done.Exchanges[0].Answer != "built" || done.Exchanges[0].StopReason != "end_turn" {
		t.Errorf("once the prompt ended, the file holds %+v", done)
	}
}

// A session's prompts go to the file its first one made, which the next
// ones do not look for again (sessionstore.Place): a copy of the file
// that a search of the chats directory would find first gets nothing.
func TestASessionsPromptsKeepItsFile(t *testing.T) {
	root := t.TempDir()
	store, err := sessionstore.Open(sessionstore.Options{Dir: t.TempDir(), GeminiDir: filepath.Join(t.TempDir(), ".gemini"), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	a, _ := newAgent(t, srv, agent.Config{Store: store})
	s := a.NewSession()
	if res, _ := prompt(t, s, "first"); res.Text != "one" {
		t.Fatalf("first prompt = %+v", res)
	}
	store.Wait()
	path, err := store.File(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(filepath.Dir(path), "session-0000-"+s.ID()[:8]+".jsonl")
	if err := os.WriteFile(copied, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if found, err := store.File(s.ID()); err != nil || found != copied {
		t.Fatalf("the store finds %q (%v); the test wants the copy %q found first", found, err, copied)
	}
	if res, _ := prompt(t, s, "second"); res.Text != "two" {
		t.Fatalf("second prompt = %+v", res)
	}
	store.Wait()
	for file, want := range map[string]bool{path: true, copied: false} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(data), `"two"`); got != want {
			t.Errorf("%s holds the second prompt's answer: %v, want %v", filepath.Base(file), got, want)
		}
	}
}
