package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// Clear empties the history in place: the next request carries only the
// new prompt, the session keeps its id, and a new agent reading the
// session back (a restart) finds it empty too.
func TestClearEmptiesTheHistoryAndItsFile(t *testing.T) {
	store := newStore(t)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	a, _ := newAgent(t, srv, agent.Config{Store: store})
	s := a.NewSession()
	prompt(t, s, "remember the number 7")
	if err := s.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h, err := s.History(); err != nil || len(h) != 0 {
		t.Fatalf("history after Clear = %d contents, %v", len(h), err)
	}
	if _, tr, err := a.Transcript(context.Background(), s.ID()); err != nil || len(tr) != 0 {
		t.Fatalf("transcript after Clear = %+v, %v", tr, err)
	}

	restarted, _ := newAgent(t, srv, agent.Config{Store: store})
	back, err := restarted.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if h, err := back.History(); err != nil || len(h) != 0 {
		t.Fatalf("saved history after Clear = %d contents, %v", len(h), err)
	}
	prompt(t, back, "what number?")
	last := srv.Requests()[1].Contents
	if len(last) != 1 || last[0].Parts[0].Text != "what number?" {
		t.Errorf("the request after Clear carries %d contents: %s", len(last), describe(last[0]))
	}
}

// ReplaceHistory makes another history the session's: the next request
// carries it, the transcript shows its prompts, and it is saved.
func TestReplaceHistoryIsSentAndSaved(t *testing.T) {
	store := newStore(t)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("first"), geminitest.TextTurn("after"))
	a, _ := newAgent(t, srv, agent.Config{Store: store})
	s := a.NewSession()
	prompt(t, s, "forget me")
	checkpoint := []*genai.Content{
		genai.NewContentFromText("my name is Ada", genai.RoleUser),
		genai.NewContentFromText("Hello, Ada.", genai.RoleModel),
	}
	if err := s.ReplaceHistory(context.Background(), checkpoint); err != nil {
		t.Fatal(err)
	}
	restarted, _ := newAgent(t, srv, agent.Config{Store: store})
	back, err := restarted.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	_, tr, err := restarted.Transcript(context.Background(), s.ID())
	if err != nil || len(tr) != 1 || tr[0].Prompt != "my name is Ada" || tr[0].Answer != "Hello, Ada." {
		t.Errorf("transcript = %+v, %v", tr, err)
	}
	prompt(t, back, "who am I?")
	got := srv.Requests()[1].Contents
	if len(got) != 3 || got[0].Parts[0].Text != "my name is Ada" || got[1].Parts[0].Text != "Hello, Ada." || got[2].Parts[0].Text != "who am I?" {
		var d []string
		for _, c := range got {
			d = append(d, describe(c))
		}
		t.Errorf("the request after ReplaceHistory: %s", strings.Join(d, " | "))
	}
}

// A history the API would refuse changes nothing.
func TestReplaceHistoryRefusesABrokenHistory(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("kept"))
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	prompt(t, s, "keep me")
	for name, h := range map[string][]*genai.Content{
		"nil content":     {nil},
		"bad role":        {genai.NewContentFromText("x", "system")},
		"nil part":        {{Role: genai.RoleUser, Parts: []*genai.Part{nil}}},
		"unanswered call": {genai.NewContentFromText("go", genai.RoleUser), {Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: call("c1", "ls", nil)}}}},
	} {
		if err := s.ReplaceHistory(context.Background(), h); err == nil || !strings.HasPrefix(err.Error(), "invalid history") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if h, _ := s.History(); len(h) != 2 || h[0].Parts[0].Text != "keep me" {
		t.Errorf("history after refused replacements: %d contents", len(h))
	}
}

// Clear does not run while a prompt does: it waits for it, and, given up
// on meanwhile, changes nothing. (The host refuses a busy session before
// the agent is asked: conversation.Turns.)
func TestClearWhileBusy(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "slow"}}, Hang: true})
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		promptCtx(ctx, s, "hang")
	}()
	if _, err := srv.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	gaveUp, stop := context.WithCancel(context.Background())
	stop()
	if err := s.Clear(gaveUp); !errors.Is(err, context.Canceled) {
		t.Errorf("Clear given up on during a prompt = %v, want it to have waited", err)
	}
	cancel()
	<-done
	if h, err := s.History(); err != nil || len(h) == 0 {
		t.Errorf("the history after a Clear given up on: %d contents, %v", len(h), err)
	}
}

// endings is a memory that records the sessions it was told to forget.
type endings struct{ ended []string }

func (m *endings) SystemMemory(context.Context) (string, error) { return "", nil }
func (m *endings) PrivateIndex() string                         { return "" }
func (m *endings) GlobalFile() string                           { return "" }
func (m *endings) EndSession(id string)                         { m.ended = append(m.ended, id) }

// The context files a session was shown on the way (beside the files
// its calls read) went with the history: the memory is told to show
// them anew.
func TestClearForgetsTheContextFilesShown(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	mem := &endings{}
	a, _ := newAgent(t, srv, agent.Config{Memory: mem})
	s := a.NewSession()
	prompt(t, s, "hi")
	if err := s.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(mem.ended) != 1 || mem.ended[0] != s.ID() {
		t.Errorf("the memory forgot %q, want the session's", mem.ended)
	}
}

// Clearing a session that has said nothing saves nothing: no empty
// session joins the saved ones.
func TestClearOfANewSessionSavesNothing(t *testing.T) {
	srv := geminitest.NewTestServer(t)
	a, _ := newAgent(t, srv, agent.Config{Store: newStore(t)})
	s := a.NewSession()
	if err := s.Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.EndSession(s.ID())
	if list, err := a.Sessions(context.Background(), ""); err != nil || len(list) != 0 {
		t.Errorf("sessions after clearing a new one = %+v, %v", list, err)
	}
}
