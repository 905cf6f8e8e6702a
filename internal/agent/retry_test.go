package agent_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func TestRetryOn429WithRetryInfo(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "quota", RetryDelay: 1500 * time.Millisecond}},
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "You exceeded your quota. Please retry in 2.5s."}},
		geminitest.TextTurn("finally"),
	)
	a, sl := newAgent(t, srv, agent.Config{})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.StopReason != dialog.StopEndTurn || res.Text != "finally" {
		t.Fatalf("result = %+v", res)
	}
	if len(only[dialog.ErrorEvent](evs)) != 0 {
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
			a, sl := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{
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
	a, _ := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{MaxAttempts: 3}})
	res, evs := prompt(t, a.NewSession(), "hi")
	var apiErr genai.APIError
	if res.StopReason != dialog.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 429 {
		t.Fatalf("result = %+v", res)
	}
	if errs := only[dialog.ErrorEvent](evs); len(errs) != 1 || errs[0].Err.Error() != res.Err.Error() {
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
	if res.StopReason != dialog.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 400 || apiErr.Status != "INVALID_ARGUMENT" {
		t.Fatalf("result = %+v", res)
	}
	if len(sl.got()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("retried a 400: waits %v, %d requests", sl.got(), len(srv.Requests()))
	}
	// The session is still usable.
	if res, _ := prompt(t, s, "again"); res.StopReason != dialog.StopEndTurn {
		t.Errorf("next prompt = %+v", res)
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(429, "quota"))
	ctx, cancel := context.WithCancel(context.Background())
	a, _ := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{
		// The real timer: an hour, unless cancellation ends the wait.
		InitialDelay: time.Hour,
		Sleep: func(ctx context.Context, d time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		},
	}})
	res, _ := promptCtx(ctx, a.NewSession(), "hi")
	if res.StopReason != dialog.StopCancelled {
		t.Errorf("result = %+v", res)
	}
}

func TestDefaultSleepHonoursCancel(t *testing.T) {
	// A delay the agent waits out (one over maxServerDelay, five minutes,
	// ends the prompt at once as a quota error, and the cancel would
	// race that ending).
	srv := geminitest.NewTestServer(t, geminitest.Turn{Err: &geminitest.APIError{Code: 503, RetryDelay: 4 * time.Minute}})
	ctx, cancel := context.WithCancel(context.Background())
	// The default policy, with its real timer.
	a := agent.New(agent.Config{Generator: generatorFor(t, srv), Model: "m"})
	done := make(chan dialog.PromptResult)
	go func() {
		res, _ := promptCtx(ctx, a.NewSession(), "hi")
		done <- res
	}()
	if _, err := srv.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if res := <-done; res.StopReason != dialog.StopCancelled {
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
	if texts := only[dialog.TextEvent](evs); len(texts) != 1 {
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
	if res.StopReason != dialog.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 503 {
		t.Fatalf("result = %+v", res)
	}
	// Output was shown, so no retry: it would show it twice.
	if len(sl.got()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("retried after output: waits %v", sl.got())
	}
	if !slices.Equal(evs.kinds(), []string{"TextEvent", "ErrorEvent"}) {
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
	a, sl := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{
		InitialDelay: 10 * time.Millisecond,
		Rand:         func() float64 { return 0.5 },
	}})
	prompt(t, a.NewSession(), "hi")
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, time.Second, 10 * time.Millisecond}
	if got := sl.got(); !slices.Equal(got, want) {
		t.Errorf("waits = %v, want %v", got, want)
	}
}

// retries returns the retry events' infos.
func (e events) retries() []dialog.RetryInfo {
	var out []dialog.RetryInfo
	for _, ev := range only[dialog.RetryEvent](e) {
		out = append(out, ev.Retry)
	}
	return out
}

// watchedSleeps records each wait with the retry events emitted before it,
// so a test sees that the user was told before the wait began.
type watchedSleeps struct {
	evs   *events
	waits []time.Duration
	told  []int // retry events emitted when each wait began
}

func (w *watchedSleeps) sleep(ctx context.Context, d time.Duration) error {
	w.waits = append(w.waits, d)
	w.told = append(w.told, len(only[dialog.RetryEvent](*w.evs)))
	return ctx.Err()
}

func TestRetryInfoWaitShownThenSuccess(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Err: &geminitest.APIError{Code: 429, Message: "slow down", RetryDelay: 2 * time.Second}},
		geminitest.TextTurn("done"),
	)
	var evs events
	w := &watchedSleeps{evs: &evs}
	a, _ := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{Sleep: w.sleep}})
	res, _ := a.NewSession().Prompt(context.Background(), dialog.Input{Text: "hi"}, front{}.port(evs.emit))
	if res.StopReason != dialog.StopEndTurn || res.Text != "done" {
		t.Fatalf("result = %+v", res)
	}
	if !slices.Equal(w.waits, []time.Duration{2 * time.Second}) || !slices.Equal(w.told, []int{1}) {
		t.Errorf("waits %v with %v retry events before each; want [2s] told first", w.waits, w.told)
	}
	want := dialog.RetryInfo{Attempt: 1, Delay: 2 * time.Second, Reason: "the model is rate-limited (429 RESOURCE_EXHAUSTED)"}
	if got := evs.retries(); len(got) != 1 || got[0] != want {
		t.Errorf("retry events = %+v, want %+v", got, want)
	}
}

// The server's delay is obeyed on a 5xx as on a 429, not the backoff.
func TestServerDelayOn5xx(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{Err: &geminitest.APIError{Code: 503, Message: "overloaded", RetryDelay: 3 * time.Second}},
		geminitest.Turn{Err: &geminitest.APIError{Code: 500, Message: "internal; please retry in 1.5s"}},
		geminitest.TextTurn("up"),
	)
	a, sl := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{InitialDelay: 10 * time.Millisecond}})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.Text != "up" {
		t.Fatalf("result = %+v", res)
	}
	if got := sl.got(); !slices.Equal(got, []time.Duration{3 * time.Second, 1500 * time.Millisecond}) {
		t.Errorf("waits = %v, want the server's [3s 1.5s]", got)
	}
	want := []dialog.RetryInfo{
		{Attempt: 1, Delay: 3 * time.Second, Reason: "the model is overloaded (503 UNAVAILABLE)"},
		{Attempt: 2, Delay: 1500 * time.Millisecond, Reason: "the model server failed (500 INTERNAL)"},
	}
	if got := evs.retries(); !slices.Equal(got, want) {
		t.Errorf("retry events = %+v\nwant %+v", got, want)
	}
}

func Test503ThreeTimesThenSuccess(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.ErrorTurn(503, "overloaded"), geminitest.ErrorTurn(503, "overloaded"), geminitest.ErrorTurn(503, "overloaded"),
		geminitest.TextTurn("back"),
	)
	a, sl := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{Rand: func() float64 { return 0.5 }}})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.StopReason != dialog.StopEndTurn || res.Text != "back" || len(srv.Requests()) != 4 {
		t.Fatalf("result = %+v after %d requests", res, len(srv.Requests()))
	}
	got := evs.retries()
	if len(got) != 3 {
		t.Fatalf("retry events = %+v, want 3", got)
	}
	for i, r := range got {
		if r.Attempt != i+1 || r.Delay != sl.got()[i] || r.Reason != "the model is overloaded (503 UNAVAILABLE)" {
			t.Errorf("retry %d = %+v (waits %v)", i+1, r, sl.got())
		}
	}
	if k := evs.kinds(); k[len(k)-2] != "TextEvent" || len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("events = %v", k)
	}
}

// A backoff cancelled ends the prompt promptly, and the next prompt's
// request is valid: the cancelled prompt, then the new one.
func TestCancelledBackoffKeepsHistoryValid(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(503, "overloaded"), geminitest.TextTurn("ok"))
	ctx, cancel := context.WithCancel(context.Background())
	a, _ := newAgent(t, srv, agent.Config{Retry: dialog.RetryPolicy{
		InitialDelay: time.Hour,
		Sleep: func(ctx context.Context, d time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		},
	}})
	s := a.NewSession()
	res, evs := promptCtx(ctx, s, "first")
	if res.StopReason != dialog.StopCancelled || !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("result = %+v", res)
	}
	if len(only[dialog.RetryEvent](evs)) != 1 || len(only[dialog.ErrorEvent](evs)) != 0 {
		t.Errorf("events = %v, want the retry shown and no error", evs.kinds())
	}
	if res, _ := prompt(t, s, "second"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("next prompt = %+v", res)
	}
	c := srv.Requests()[1].Contents
	if len(c) != 2 || c[0].Parts[0].Text != "first" || c[1].Parts[0].Text != "second" {
		t.Errorf("contents after a cancelled backoff = %s", toJSON(c))
	}
}

func TestEmptyAnswerRetryShown(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.Turn{FinishReason: genai.FinishReasonOther}, geminitest.TextTurn("here"))
	a, _ := newAgent(t, srv, agent.Config{})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.Text != "here" {
		t.Fatalf("result = %+v", res)
	}
	want := dialog.RetryInfo{Attempt: 1, Delay: 500 * time.Millisecond, Reason: "the model returned no answer: it gave no answer (finish reason OTHER)"}
	if got := evs.retries(); len(got) != 1 || got[0] != want {
		t.Errorf("retry events = %+v, want %+v", got, want)
	}
}

// A stream that breaks off, or ends without a finish reason, before any of
// it was shown is asked for again, as Gemini CLI retries an invalid stream.
func TestStreamCutBeforeAnythingShownIsRetried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		turn   geminitest.Turn
		reason string
	}{
		{"cut before any chunk", geminitest.Turn{Cut: true}, "the model's answer stream broke off (unexpected EOF) before any answer was shown"},
		{"cut after a call", geminitest.Turn{Chunks: []geminitest.Chunk{{Call: call("c1", "read_file", map[string]any{"path": "a.go"})}}, Cut: true}, "the model's answer stream broke off (unexpected EOF) before any answer was shown"},
		{"no finish reason", geminitest.Turn{NoFinishReason: true}, "the model's answer ended without a finish reason before any answer was shown"},
		{"no finish reason after a call", geminitest.Turn{Chunks: []geminitest.Chunk{{Call: call("c1", "read_file", map[string]any{"path": "a.go"})}}, NoFinishReason: true}, "the model's answer ended without a finish reason before any answer was shown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, tc.turn, tc.turn, geminitest.TextTurn("whole answer"))
			a, sl := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
			res, evs := prompt(t, a.NewSession(), "hi")
			if res.StopReason != dialog.StopEndTurn || res.Text != "whole answer" || res.ToolCalls != 0 {
				t.Fatalf("result = %+v", res)
			}
			want := []dialog.RetryInfo{{Attempt: 1, Delay: time.Second, Reason: tc.reason}, {Attempt: 2, Delay: 2 * time.Second, Reason: tc.reason}}
			if got := evs.retries(); !slices.Equal(got, want) {
				t.Errorf("retry events = %+v\nwant %+v", got, want)
			}
			if got := sl.got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second}) {
				t.Errorf("waits = %v", got)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("%d requests, want 3", n)
			}
		})
	}
}

func TestStreamCutBeforeAnythingShownGivesUp(t *testing.T) {
	cut := geminitest.Turn{Cut: true}
	srv := geminitest.NewTestServer(t, cut, cut, cut, cut)
	a, sl := newAgent(t, srv, agent.Config{})
	res, evs := prompt(t, a.NewSession(), "hi")
	if res.StopReason != dialog.StopError || !errors.Is(res.Err, io.ErrUnexpectedEOF) ||
		!strings.Contains(res.Err.Error(), "broke off 4 times in a row before any of it was shown") {
		t.Fatalf("result = %+v", res)
	}
	if got := sl.got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}) {
		t.Errorf("waits = %v, want Gemini CLI's 1s 2s 4s", got)
	}
	if len(only[dialog.ErrorEvent](evs)) != 1 {
		t.Errorf("events = %v", evs.kinds())
	}
}

// A request that cannot connect is retried as an answer that broke off
// before anything was shown is, and the user is told what happened, each
// time: no connection could be made to the endpoint, not an answer cut
// off.
func TestRequestThatCannotConnect(t *testing.T) {
	connRefused := syscall.ECONNREFUSED
	if runtime.GOOS == "windows" {
		connRefused = syscall.Errno(10061) // WSAECONNREFUSED, which the syscall package does not name
	}
	url := geminitest.RefusingURL(t)
	a, sl := newAgentAt(t, url, agent.Config{})
	res, evs := prompt(t, a.NewSession(), "hi")
	reason := "could not connect to " + url + ": connection refused"
	if res.StopReason != dialog.StopError || res.Err == nil || apierror.Raw(res.Err).Error() != reason+" (4 attempts)" || !errors.Is(res.Err, connRefused) {
		t.Fatalf("result = %+v, want the error %q", res, reason+" (4 attempts)")
	}
	want := []dialog.RetryInfo{{Attempt: 1, Delay: time.Second, Reason: reason}, {Attempt: 2, Delay: 2 * time.Second, Reason: reason}, {Attempt: 3, Delay: 4 * time.Second, Reason: reason}}
	if got := evs.retries(); !slices.Equal(got, want) {
		t.Errorf("retry events = %+v\nwant %+v", got, want)
	}
	if got := sl.got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}) {
		t.Errorf("waits = %v", got)
	}
}

// The utility model's requests (compression, tools' helpers) that cannot
// connect say so too, at once: they are not retried (the chat request
// after them goes to the same endpoint, and retries visibly).
func TestUtilityRequestThatCannotConnect(t *testing.T) {
	url := geminitest.RefusingURL(t)
	gen := auth.NewGenerator(auth.Auth{Type: auth.GeminiAPIKey, Config: genai.ClientConfig{
		APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: url},
	}})
	sl := &sleeps{}
	u := agent.NewUtility(gen, dialog.RetryPolicy{MaxAttempts: 2, Sleep: sl.sleep})
	_, err := u.GenerateContent(t.Context(), models.WebSearch, []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, nil)
	if want := "utility call to " + models.Gemini3FlashPreview + ": could not connect to " + url + ": connection refused"; err == nil || err.Error() != want {
		t.Errorf("GenerateContent = %v, want %q", err, want)
	}
	if got := sl.got(); len(got) != 0 {
		t.Errorf("the request was retried after waits of %v", got)
	}
}

// An auto's prompt whose endpoint refuses connections is not held up by
// the routing request: the classifier fails at once and the prompt goes
// to the default model, whose request tells of the endpoint on its first
// failure and gives up after its three quick retries (Gemini CLI 0.61
// retries the classifier's ECONNREFUSED silently, 5 s doubling).
func TestAutoWhenTheEndpointRefusesConnections(t *testing.T) {
	url := geminitest.RefusingURL(t)
	a, sl := newAgentAt(t, url, agent.Config{Model: models.Auto})
	res, evs := prompt(t, a.NewSession(), "hi")
	reason := "could not connect to " + url + ": connection refused"
	if res.Err == nil || apierror.Raw(res.Err).Error() != reason+" (4 attempts)" || res.Model != models.Resolve(models.Auto) {
		t.Fatalf("result = %+v, want %q from %s", res, reason+" (4 attempts)", models.Resolve(models.Auto))
	}
	if len(evs) == 0 || evs.kinds()[0] != "RetryEvent" || only[dialog.RetryEvent](evs)[0].Retry.Reason != reason {
		t.Errorf("the first event is %+v, want the retry saying %q", evs[:min(1, len(evs))], reason)
	}
	if got := sl.got(); !slices.Equal(got, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}) {
		t.Errorf("waits = %v, want only the chat request's", got)
	}
}

// A stream that breaks off, or ends without a finish reason, after text
// or a thought was shown is not asked for again (the user would see it
// twice): the turn ends saying the answer was cut off, the text stays in
// the transcript, the history does not keep it and its calls do not run.
func TestStreamCutAfterSomethingShown(t *testing.T) {
	readCall := geminitest.Chunk{Call: call("c1", "read_file", map[string]any{"path": "a.go"})}
	for _, tc := range []struct {
		name, text, msg string
		turn            geminitest.Turn
	}{
		{"cut after text", "Half an ans", "the answer was cut off: the model's answer stream broke off (unexpected EOF)",
			geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Half an ans"}, readCall}, Cut: true}},
		{"no finish reason after text", "Half an ans", "the answer was cut off: the model's answer ended without a finish reason",
			geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "Half an ans"}, readCall}, NoFinishReason: true}},
		{"cut after a thought", "", "the answer was cut off: the model's answer stream broke off (unexpected EOF)",
			geminitest.Turn{Chunks: []geminitest.Chunk{{Text: "**Plan** read it", Thought: true}, readCall}, Cut: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, tc.turn, geminitest.TextTurn("ok"))
			read := 0
			tool := readTool()
			build := tool.build
			tool.build = func(args map[string]any) (tools.Call, error) { read++; return build(args) }
			a, sl := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(tool)})
			s := a.NewSession()
			res, evs := prompt(t, s, "first")
			if res.StopReason != dialog.StopError || res.Err == nil || !strings.HasPrefix(res.Err.Error(), tc.msg) ||
				!strings.Contains(res.Err.Error(), "the 1 tool call(s) it made were not run") {
				t.Fatalf("result = %+v, want an error starting %q", res, tc.msg)
			}
			if _, ok := errors.AsType[*agent.AnswerCutOffError](res.Err); !ok {
				t.Errorf("error %T, want an *agent.AnswerCutOffError", res.Err)
			}
			if res.Text != tc.text {
				t.Errorf("transcript text = %q, want the partial %q", res.Text, tc.text)
			}
			if len(sl.got()) != 0 || len(only[dialog.RetryEvent](evs)) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("retried after output: waits %v, events %v", sl.got(), evs.kinds())
			}
			if read != 0 || res.ToolCalls != 0 || len(only[dialog.ToolCallEvent](evs)) != 0 {
				t.Errorf("the cut answer's call ran: %d builds, %d calls", read, res.ToolCalls)
			}
			if errs := only[dialog.ErrorEvent](evs); len(errs) != 1 || errs[0].Err != res.Err {
				t.Errorf("error events = %v", errs)
			}
			prompt(t, s, "second")
			c := srv.Requests()[1].Contents
			if len(c) != 2 || c[0].Parts[0].Text != "first" || c[1].Parts[0].Text != "second" {
				t.Errorf("the partial answer was recorded: %s", toJSON(c))
			}
		})
	}
}
