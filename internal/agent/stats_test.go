package agent_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func usage(prompt, candidates int32) *genai.GenerateContentResponseUsageMetadata {
	return &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: prompt, CandidatesTokenCount: candidates, TotalTokenCount: prompt + candidates}
}

// A session counts its calls by tool: how each ended, and the user's
// decision where one was asked for (a refusal by nobody to ask counts as
// a rejection; "always allow" as auto_accept; a call that did not ask
// counts none).
func TestStatsCountCallsAndDecisions(t *testing.T) {
	calls := geminitest.CallTurn(
		geminitest.Call(tools.ShellName, map[string]any{"command": "go test"}),
		geminitest.Call(tools.ShellName, map[string]any{"command": "go vet"}),
		geminitest.Call(tools.ShellName, map[string]any{"command": "rm x"}),
		geminitest.Call(tools.ShellName, map[string]any{"command": "make"}),
		geminitest.Call(tools.ShellName, map[string]any{"command": "make"}),
		geminitest.Call("read_file", map[string]any{"path": "a.txt"}),
		geminitest.Call("read_file", map[string]any{}),
	)
	calls.Usage = usage(10, 4)
	// In an answer of their own: a declined call cancels the later
	// batches of its answer.
	edits := geminitest.CallTurn(
		geminitest.Call(tools.ReplaceName, map[string]any{"text": "yes\n"}),
		geminitest.Call(tools.ReplaceName, map[string]any{"text": "mine\n"}),
		geminitest.Call(tools.ReplaceName, map[string]any{"text": "no\n"}),
	)
	edits.Usage = usage(0, 0)
	done := geminitest.TextTurn("ok")
	done.Usage = usage(30, 2)
	srv := geminitest.NewTestServer(t, calls, edits, done)

	conf := &confirmer{answer: func(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		switch req.Details {
		case "go test":
			return dialog.ProceedOnce, nil
		case "rm x":
			return dialog.Cancel, fmt.Errorf("%w: nobody here", dialog.ErrCannotAsk)
		case "make":
			return dialog.ProceedAlways, nil
		}
		return dialog.Cancel, nil
	}}
	lander := landerFunc(func(_ context.Context, req dialog.LandRequest) (dialog.Landing, error) {
		switch req.Change.After {
		case "no\n":
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Declined}}, nil
		case "mine\n":
			return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Modified, Content: "theirs\n"}}, nil
		}
		return dialog.Landing{Decision: dialog.Decision{Outcome: dialog.Applied, Content: req.Change.After}}, nil
	})
	sh := &shellTool{}
	ui := front{confirmer: conf, lander: lander}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool(), readTool(), editTool())})
	s := a.NewSession()
	if res, _ := ui.prompt(t, s, "work"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt = %+v", res)
	}

	st := s.Stats()
	want := map[string]dialog.ToolStats{
		// A call nobody was asked about counts as accepted, as in 0.61.
		tools.ShellName:   {Calls: 5, Success: 3, Fail: 2, Decisions: dialog.Decisions{Accept: 2, Reject: 2, AutoAccept: 1}},
		"read_file":       {Calls: 2, Success: 1, Fail: 1, Decisions: dialog.Decisions{Accept: 1}},
		tools.ReplaceName: {Calls: 3, Success: 2, Fail: 1, Decisions: dialog.Decisions{Accept: 1, Reject: 1, Modify: 1}},
	}
	if len(st.Tools) != len(want) {
		t.Errorf("tools = %+v, want %d of them", st.Tools, len(want))
	}
	for name, w := range want {
		got := st.Tools[name]
		got.Duration = 0 // not a test of the clock
		if got != w {
			t.Errorf("%s = %+v, want %+v", name, got, w)
		}
	}
	m := st.Models["gemini-test"]
	if len(st.Models) != 1 || m.Requests != 3 || m.Errors != 0 || m.Tokens != (dialog.Usage{PromptTokens: 40, CandidatesTokens: 6, TotalTokens: 46}) {
		t.Errorf("models = %+v", st.Models)
	}
}

// Each request counts, a retried one too, and those that failed count
// as errors; the tokens are the answered requests'.
func TestStatsCountRequestsAndErrors(t *testing.T) {
	done := geminitest.TextTurn("ok")
	done.Usage = usage(7, 3)
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(503, "busy"), done, geminitest.ErrorTurn(400, "bad request"))
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	prompt(t, s, "one")
	if res, _ := prompt(t, s, "two"); res.StopReason != dialog.StopError {
		t.Fatalf("second prompt = %+v, want the 400", res)
	}
	m := s.Stats().Models["gemini-test"]
	if m.Requests != 3 || m.Errors != 2 || m.Tokens != (dialog.Usage{PromptTokens: 7, CandidatesTokens: 3, TotalTokens: 10}) {
		t.Errorf("model stats = %+v", m)
	}
	// By Gemini CLI 0.61's name for them: the API's errors are ApiErrors.
	if want := map[string]int{"ApiError": 2}; !maps.Equal(m.ErrorsByType, want) {
		t.Errorf("errors by type = %v, want %v", m.ErrorsByType, want)
	}
	if fresh := a.NewSession().Stats(); len(fresh.Models) != 0 || len(fresh.Tools) != 0 {
		t.Errorf("a new session's stats = %+v, want none", fresh)
	}
}

// A request the user cancelled is a request, not an error, as Gemini CLI
// 0.61 does not count an aborted one.
func TestStatsDoNotCountACancelledRequestAsAnError(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "I am start"}}, Hang: true})
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, _ := s.Prompt(ctx, dialog.Input{Text: "first"}, front{}.port(func(ev dialog.Event) {
		if _, ok := ev.(dialog.TextEvent); ok {
			cancel()
		}
	}))
	if res.StopReason != dialog.StopCancelled {
		t.Fatalf("result = %+v", res)
	}
	if m := s.Stats().Models["gemini-test"]; m.Requests != 1 || m.Errors != 0 || len(m.ErrorsByType) != 0 {
		t.Errorf("model stats = %+v, want one request and no error", m)
	}
}
