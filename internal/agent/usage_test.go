package agent_test

import (
	"context"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// usageTurn is a text answer whose usage says cached of prompt tokens
// came from the context cache.
func usageTurn(text string, prompt, cached int32) geminitest.Turn {
	turn := geminitest.TextTurn(text)
	turn.Usage = &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount: prompt, CachedContentTokenCount: cached, CandidatesTokenCount: 2, TotalTokenCount: prompt + 2,
	}
	return turn
}

// Each usage event says how much of the model's window its request took,
// and the session keeps the last answer's figure for /stats.
func TestUsageReportsContextFill(t *testing.T) {
	srv := geminitest.NewTestServer(t, usageTurn("one", 1200, 0), usageTurn("two", 3400, 1100))
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	prompt(t, s, "first")
	_, evs := prompt(t, s, "second")
	us := only[dialog.UsageEvent](evs)
	want := dialog.ContextFill{Used: 3400, Size: agent.DefaultTokenLimit}
	if len(us) != 1 || us[0].Usage.Context != want {
		t.Fatalf("usage events = %+v, want context %+v", us, want)
	}
	if us[0].Usage.Session.CachedTokens != 1100 {
		t.Errorf("session's cached tokens = %d, want 1100", us[0].Usage.Session.CachedTokens)
	}
	if info := s.Info(); info.Context != want {
		t.Errorf("session info's context = %+v, want %+v", info.Context, want)
	}
}

// The cached tokens are part of the session's usage saved with it: a
// resumed session's sum still counts them; the context window's fill is
// saved too.
func TestCachedTokensSurviveResume(t *testing.T) {
	store := newStore(t)
	srv := geminitest.NewTestServer(t, usageTurn("one", 500, 300), usageTurn("two", 900, 700))
	first, _ := newAgent(t, srv, agent.Config{Store: store})
	s := first.NewSession()
	prompt(t, s, "first")

	second, _ := newAgent(t, srv, agent.Config{Store: store})
	resumed, err := second.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := resumed.Info().Usage.CachedTokens; got != 300 {
		t.Fatalf("resumed session's cached tokens = %d, want the 300 saved", got)
	}
	// And how full the window was: shown again on resume, before the
	// session answers.
	if got, want := resumed.Info().Context, (dialog.ContextFill{Used: 500, Size: agent.DefaultTokenLimit}); got != want {
		t.Errorf("resumed session's context = %+v, want the %+v saved", got, want)
	}
	_, evs := prompt(t, resumed, "second")
	us := only[dialog.UsageEvent](evs)
	if len(us) != 1 || us[0].Usage.Session.CachedTokens != 1000 || us[0].Usage.Session.PromptTokens != 1400 {
		t.Errorf("usage after resume = %+v, want 1000 cached of 1400", us)
	}
}

// A conversation rewound no longer holds what the last request held: how
// full the window is is unknown until the next answer, in this process
// and after a resume, while the tokens spent stay spent.
func TestRewindForgetsTheContextFill(t *testing.T) {
	store := newStore(t)
	srv := geminitest.NewTestServer(t, usageTurn("one", 500, 0), usageTurn("two", 900, 0))
	a, _ := newAgent(t, srv, agent.Config{Store: store})
	s := a.NewSession()
	prompt(t, s, "first")
	prompt(t, s, "second")
	if s.Info().Context.Used != 900 {
		t.Fatalf("context before the rewind = %+v", s.Info().Context)
	}
	if _, err := s.Rewind(context.Background(), 2, dialog.RewindConversation, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Info(); got.Context != (dialog.ContextFill{}) || got.Usage.TotalTokens != 1404 {
		t.Errorf("after the rewind: context %+v, tokens %d; want no context known and the 1404 tokens spent", got.Context, got.Usage.TotalTokens)
	}
	second, _ := newAgent(t, srv, agent.Config{Store: store})
	resumed, err := second.Session(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got := resumed.Info().Context; got != (dialog.ContextFill{}) {
		t.Errorf("resumed after the rewind: context %+v, want none known", got)
	}
}
