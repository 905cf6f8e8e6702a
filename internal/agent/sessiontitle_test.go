package agent_test

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// topicTurn is the model naming a topic with update_topic.
func topicTurn(title string) geminitest.Turn {
	return geminitest.CallTurn(&genai.FunctionCall{Name: tools.UpdateTopicName, Args: map[string]any{
		"title": title, "summary": "Starting on it.", "strategic_intent": "Read the code."}})
}

// A session is titled by its first prompt until the model names a topic,
// then by the last topic it named: live, saved, and listed by a new
// agent (as after a restart) and when resumed. A turn that carries a
// topic on, naming none, leaves the title.
func TestSessionTitledByItsLastTopic(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	must(t, err)
	srv := geminitest.NewTestServer(t,
		geminitest.TextTurn("Hello."),
		topicTurn("Fix the login bug"), geminitest.TextTurn("Fixed."),
		topicTurn("Write the tests"), geminitest.TextTurn("Written."),
		geminitest.CallTurn(&genai.FunctionCall{Name: tools.UpdateTopicName, Args: map[string]any{"strategic_intent": "Run them."}}), geminitest.TextTurn("They pass."),
	)
	store := newStore(t)
	cfg := agent.Config{Tools: tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...), Workspace: ws, Store: store}
	a, _ := newAgent(t, srv, cfg)
	s := a.NewSession()
	prompt(t, s, "hi there\nand more")
	if got := s.Info().Title; got != "hi there" {
		t.Fatalf("titled %q before any topic, want the first prompt's first line", got)
	}
	for _, text := range []string{"fix the login", "now the tests", "run them"} {
		if res, _ := prompt(t, s, text); res.Err != nil {
			t.Fatalf("%s: %v", text, res.Err)
		}
	}
	if got := s.Info().Title; got != "Write the tests" {
		t.Errorf("live session titled %q, want the last topic named", got)
	}

	restarted, _ := newAgent(t, srv, cfg)
	list, err := restarted.Sessions(context.Background(), "")
	if err != nil || len(list) != 1 || list[0].Title != "Write the tests" {
		t.Fatalf("a new agent lists %+v, %v; want the session titled by its last topic", list, err)
	}
	resumed, err := restarted.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := resumed.Info().Title; got != "Write the tests" {
		t.Errorf("resumed session titled %q, want its last topic", got)
	}
}
