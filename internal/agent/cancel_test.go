package agent_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func TestCancelMidStream(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "I am start"}}, Hang: true},
		geminitest.TextTurn("ok"),
	)
	a, _ := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs events
	res, _ := s.Prompt(ctx, dialog.Input{Text: "first"}, front{}.port(func(ev dialog.Event) {
		evs.emit(ev)
		if _, ok := ev.(dialog.TextEvent); ok {
			cancel() // the server keeps the stream open: only cancelling ends it
		}
	}))
	if res.StopReason != dialog.StopCancelled || !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("result = %+v", res)
	}
	if len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("cancelling is not an error: %v", evs.kinds())
	}
	// The cut-off answer is not kept; the prompt is.
	prompt(t, s, "second")
	c := srv.Requests()[1].Contents
	if len(c) != 2 || c[0].Parts[0].Text != "first" || c[1].Parts[0].Text != "second" {
		t.Errorf("contents after a cancelled stream = %s", toJSON(c))
	}
}

// checkCancelledHistory checks that the request after a cancelled tool turn
// answers both calls of that turn.
func checkCancelledHistory(t *testing.T, r geminitest.Request, first string) {
	t.Helper()
	c := r.Contents
	if len(c) != 4 || c[1].Role != "model" || len(c[1].Parts) != 2 || c[2].Role != "user" || c[3].Parts[0].Text != "next" {
		t.Fatalf("contents = %s", toJSON(c))
	}
	fr := c[2].Parts
	if len(fr) != 2 || fr[0].FunctionResponse.ID != c[1].Parts[0].FunctionCall.ID || fr[1].FunctionResponse.ID != c[1].Parts[1].FunctionCall.ID {
		t.Fatalf("responses = %s", toJSON(fr))
	}
	if got := fr[0].FunctionResponse.Response["error"]; got != first {
		t.Errorf("first response error = %v, want %q", got, first)
	}
	if got := fr[1].FunctionResponse.Response["error"]; got != "The user cancelled the operation before this call ran." {
		t.Errorf("second response error = %v", got)
	}
}

func TestCancelMidConfirmation(t *testing.T) {
	srv := geminitest.NewTestServer(t, shellTurn("go test", "go vet"), geminitest.TextTurn("ok"))
	sh := &shellTool{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conf := &confirmer{answer: func(ctx context.Context, _ dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		cancel()
		<-ctx.Done() // the user never answers
		return dialog.Cancel, ctx.Err()
	}}
	ui := front{confirmer: conf}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool())})
	s := a.NewSession()
	res, evs := ui.promptCtx(ctx, s, "test")
	if res.StopReason != dialog.StopCancelled {
		t.Fatalf("result = %+v", res)
	}
	if len(sh.commands()) != 0 || len(conf.asked()) != 1 {
		t.Errorf("ran %q, asked %d times", sh.commands(), len(conf.asked()))
	}
	// The second call, started with the first, was cancelled waiting
	// to ask after it, or before it started.
	got := only[dialog.ToolResultEvent](evs)
	if len(got) == 0 || len(got) > 2 {
		t.Errorf("results = %+v", got)
	}
	for _, ev := range got {
		if ev.Result.Status != dialog.StatusCancelled {
			t.Errorf("result = %+v, want cancelled", ev.Result)
		}
	}
	ui.prompt(t, s, "next")
	checkCancelledHistory(t, srv.Requests()[1], "The user cancelled the operation before this call ran.")
}

func TestCancelMidTool(t *testing.T) {
	started := make(chan struct{})
	block := fakeTool{name: "run_shell_command", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "sleep", exec: func(ctx context.Context) (tools.Result, error) {
			close(started)
			<-ctx.Done()
			return tools.Result{}, ctx.Err()
		}}, nil
	}}
	// The second call waits for the first, so it never starts.
	srv := geminitest.NewTestServer(t, geminitest.CallTurn(
		geminitest.Call("run_shell_command", map[string]any{"command": "sleep 100"}),
		geminitest.Call("run_shell_command", map[string]any{"command": "echo never", "wait_for_previous": true}),
	), geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(block), ApprovalMode: dialog.ApprovalYolo})
	s := a.NewSession()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	res, evs := promptCtx(ctx, s, "run")
	if res.StopReason != dialog.StopCancelled {
		t.Fatalf("result = %+v", res)
	}
	if got := only[dialog.ToolResultEvent](evs); len(got) != 1 || got[0].Result.Status != dialog.StatusCancelled {
		t.Errorf("results = %+v", got)
	}
	prompt(t, s, "next")
	checkCancelledHistory(t, srv.Requests()[1], "The user cancelled the operation while this call was running.")
}

// A session runs one prompt at a time: a second waits for the first,
// which goes on undisturbed, and then runs after it.
func TestPromptToABusySessionWaits(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	wait := fakeTool{name: "wait", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "wait", exec: func(context.Context) (tools.Result, error) {
			close(entered)
			<-release
			return tools.Result{Output: "done"}, nil
		}}, nil
	}}
	srv := geminitest.NewTestServer(t,
		geminitest.CallTurn(geminitest.Call("wait", nil)), geminitest.TextTurn("first done"),
		geminitest.TextTurn("second done"),
	)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(wait)})
	s := a.NewSession()
	firstDone := make(chan dialog.PromptResult)
	go func() {
		res, _ := prompt(t, s, "first")
		firstDone <- res
	}()
	<-entered

	gaveUp, stop := context.WithCancel(context.Background())
	stop()
	if res, err := s.Prompt(gaveUp, dialog.Input{Text: "given up"}, front{}.port(nil)); err != nil || res.StopReason != dialog.StopCancelled {
		t.Errorf("a prompt given up on while another runs: %+v, %v; want it cancelled", res, err)
	}
	secondDone := make(chan dialog.PromptResult)
	go func() {
		res, _ := prompt(t, s, "second")
		secondDone <- res
	}()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests while the first prompt was busy, want 1", n)
	}
	close(release)
	if res := <-firstDone; res.Text != "first done" {
		t.Errorf("first = %+v", res)
	}
	// The next prompt runs, after the first in the history.
	if res := <-secondDone; res.Text != "second done" {
		t.Errorf("second = %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want the first prompt's two and the second's", len(reqs))
	}
	var texts []string
	for _, c := range reqs[2].Contents {
		if c.Role == "user" && c.Parts[0].Text != "" {
			texts = append(texts, c.Parts[0].Text)
		}
	}
	if !slices.Equal(texts, []string{"first", "second"}) {
		t.Errorf("user prompts in history = %q", texts)
	}
}
