package agent_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/auth"
)

func TestRetryOn429WithRetryInfo(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "quota", RetryDelay: 1500 * time.Millisecond}},
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "You exceeded your quota. Please retry in 2.5s."}},
		geminitest.TextTurn("finally"),
	)
	a, sl := newAgent(t, srv, agent.Config{})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.StopReason != agent.StopEndTurn || res.Text != "finally" {
		t.Fatalf("result = %+v", res)
	}
	if len(evs.of(agent.EventError)) != 0 {
		t.Errorf("a retried error is not reported: %v", evs.kinds())
	}
	// The server's delays, from RetryInfo and then from the message.
	if got := sl.got(); !slices.Equal(got, []time.Duration{1500 * time.Millisecond, 2500 * time.Millisecond}) {
		t.Errorf("waits = %v", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || toJSON(reqs[0].Contents) != toJSON(reqs[2].Contents) {
		t.Errorf("%d requests; retries must resend the same contents", len(reqs))
	}
}

func TestRetryBackoffOn5xx(t *testing.T) {
	for _, tc := range []struct {
		name string
		rand float64
		want []time.Duration
	}{
		// Rand 0.5 is no jitter: 10ms doubling, capped at 25ms.
		{"no jitter", 0.5, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond}},
		// Rand 0 is -30%.
		{"minus 30%", 0, []time.Duration{7 * time.Millisecond, 14 * time.Millisecond, 17500 * time.Microsecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t,
				geminitest.ErrorTurn(503, "overloaded"),
				geminitest.ErrorTurn(500, "internal"),
				geminitest.ErrorTurn(503, "overloaded"),
				geminitest.TextTurn("up again"),
			)
			a, sl := newAgent(t, srv, agent.Config{Retry: agent.RetryPolicy{
				InitialDelay: 10 * time.Millisecond,
				MaxDelay:     25 * time.Millisecond,
				Rand:         func() float64 { return tc.rand },
			}})
			if res, _ := prompt(t, a.NewSession(), "hi"); res.Text != "up again" {
				t.Fatalf("result = %+v", res)
			}
			if got := sl.got(); !slices.Equal(got, tc.want) {
				t.Errorf("waits = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRetryGivesUp(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.ErrorTurn(429, "quota"), geminitest.ErrorTurn(429, "quota"), geminitest.ErrorTurn(429, "quota"),
	)
	a, _ := newAgent(t, srv, agent.Config{Retry: agent.RetryPolicy{MaxAttempts: 3}})
	res, evs := prompt(t, a.NewSession(), "hi")
	var apiErr genai.APIError
	if res.StopReason != agent.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 429 {
		t.Fatalf("result = %+v", res)
	}
	if errs := evs.of(agent.EventError); len(errs) != 1 || errs[0].Err.Error() != res.Err.Error() {
		t.Errorf("error events = %+v", errs)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 attempts", n)
	}
}

func TestNoRetryOn400(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(400, "bad request"), geminitest.TextTurn("after"))
	a, sl := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	res, _ := prompt(t, s, "hi")
	var apiErr genai.APIError
	if res.StopReason != agent.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 400 || apiErr.Status != "INVALID_ARGUMENT" {
		t.Fatalf("result = %+v", res)
	}
	if len(sl.got()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("retried a 400: waits %v, %d requests", sl.got(), len(srv.Requests()))
	}
	// The session is still usable.
	if res, _ := prompt(t, s, "again"); res.StopReason != agent.StopEndTurn {
		t.Errorf("next prompt = %+v", res)
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(429, "quota"))
	ctx, cancel := context.WithCancel(context.Background())
	a, _ := newAgent(t, srv, agent.Config{Retry: agent.RetryPolicy{
		// The real timer: an hour, unless cancellation ends the wait.
		InitialDelay: time.Hour,
		Sleep: func(ctx context.Context, d time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		},
	}})
	res, _ := promptCtx(ctx, a.NewSession(), "hi")
	if res.StopReason != agent.StopCancelled {
		t.Errorf("result = %+v", res)
	}
}

func TestDefaultSleepHonoursCancel(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{Err: &geminitest.APIError{Code: 503, RetryDelay: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	// The default policy, with its real timer.
	a := agent.New(agent.Config{Generator: generatorFor(t, srv), Model: "m"})
	done := make(chan agent.PromptResult)
	go func() {
		res, _ := promptCtx(ctx, a.NewSession(), "hi")
		done <- res
	}()
	if _, err := srv.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if res := <-done; res.StopReason != agent.StopCancelled {
		t.Errorf("result = %+v", res)
	}
}

func generatorFor(t *testing.T, srv *geminitest.Server) agent.ContentGenerator {
	t.Helper()
	return auth.NewGenerator(auth.Auth{Type: auth.GeminiAPIKey, Config: genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	}})
}

func TestStreamErrorBeforeFirstChunkIsRetried(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Err: &geminitest.APIError{Code: 503, Message: "overloaded"}},
		geminitest.TextTurn("hello"),
	)
	a, sl := newAgent(t, srv, agent.Config{})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.Text != "hello" || len(sl.got()) != 1 {
		t.Errorf("result %+v after waits %v", res, sl.got())
	}
	if texts := evs.of(agent.EventText); len(texts) != 1 {
		t.Errorf("text events = %+v", texts)
	}
}

func TestStreamErrorAfterFirstChunk(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Half an ans"}}, Err: &geminitest.APIError{Code: 503, Message: "overloaded"}},
		geminitest.TextTurn("ok"),
	)
	a, sl := newAgent(t, srv, agent.Config{})
	s := a.NewSession()
	res, evs := prompt(t, s, "first")
	var apiErr genai.APIError
	if res.StopReason != agent.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 503 {
		t.Fatalf("result = %+v", res)
	}
	// Output was shown, so no retry: it would show it twice.
	if len(sl.got()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("retried after output: waits %v", sl.got())
	}
	if !slices.Equal(evs.kinds(), []agent.EventKind{agent.EventText, agent.EventError}) {
		t.Errorf("events = %v", evs.kinds())
	}
	prompt(t, s, "second")
	c := srv.Requests()[1].Contents
	if len(c) != 2 || c[0].Parts[0].Text != "first" || c[1].Parts[0].Text != "second" {
		t.Errorf("the partial answer was recorded: %s", toJSON(c))
	}
}

func TestServerDelayResetsBackoff(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.ErrorTurn(503, "overloaded"),
		geminitest.ErrorTurn(503, "overloaded"),
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, RetryDelay: time.Second}},
		geminitest.ErrorTurn(503, "overloaded"),
		geminitest.TextTurn("ok"),
	)
	a, sl := newAgent(t, srv, agent.Config{Retry: agent.RetryPolicy{
		InitialDelay: 10 * time.Millisecond,
		Rand:         func() float64 { return 0.5 },
	}})
	prompt(t, a.NewSession(), "hi")
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, time.Second, 10 * time.Millisecond}
	if got := sl.got(); !slices.Equal(got, want) {
		t.Errorf("waits = %v, want %v", got, want)
	}
}
