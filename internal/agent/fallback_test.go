package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// dailyQuota is a 429 saying the model's daily quota is used up, as the
// Gemini API sends it.
func dailyQuota() geminitest.Turn {
	return geminitest.Turn{Err: &geminitest.APIError{
		Code:    429,
		Message: "You exceeded your current quota, please check your plan and billing details.",
		Details: []map[string]any{{
			"@type":      "type.googleapis.com/google.rpc.QuotaFailure",
			"violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}},
		}},
	}}
}

func modelsAsked(reqs []geminitest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Model)
	}
	return out
}

const switchNotice = "Switched to gemini-3-flash-preview for the rest of this session because gemini-3.1-pro-preview-customtools is out of quota (429 RESOURCE_EXHAUSTED)."

func TestProQuotaFallsBackWhenTheUserAgrees(t *testing.T) {
	for _, answer := range []dialog.ConfirmOutcome{dialog.ProceedOnce, dialog.ProceedAlways} {
		t.Run(string(answer), func(t *testing.T) {
			core, logs := observer.New(zapcore.InfoLevel)
			srv := geminitest.NewTestServer(t, dailyQuota(), geminitest.TextTurn("from flash"), geminitest.TextTurn("flash again"), geminitest.TextTurn("other session"))
			c := always(answer)
			ui := front{confirmer: c}
			a, sl := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools", Logger: zap.New(core)})
			s := a.NewSession()
			res, evs := ui.prompt(t, s, "hi")
			if res.StopReason != dialog.StopEndTurn || res.Text != "from flash" {
				t.Fatalf("result = %+v", res)
			}
			asked := c.asked()
			if len(asked) != 1 || asked[0].Kind != dialog.ConfirmModelFallback || asked[0].SessionID != s.ID() ||
				asked[0].Title != "Switch to gemini-3-flash-preview?" ||
				asked[0].Details != "gemini-3.1-pro-preview-customtools is out of quota (429 RESOURCE_EXHAUSTED). Switch to gemini-3-flash-preview for the rest of this session and try again? Otherwise this prompt stops." {
				t.Errorf("asked %+v", asked)
			}
			// A daily quota is not waited for.
			if len(sl.got()) != 0 || len(only[dialog.RetryEvent](evs)) != 0 {
				t.Errorf("waited %v before falling back", sl.got())
			}
			if n := only[dialog.NoticeEvent](evs); len(n) != 1 || n[0].Text != switchNotice {
				t.Errorf("notices = %+v", n)
			}
			// The rest of the session uses Flash, without telling again; a
			// new session is told once.
			if _, evs := ui.prompt(t, s, "more"); len(only[dialog.NoticeEvent](evs)) != 0 {
				t.Errorf("told again: %v", only[dialog.NoticeEvent](evs))
			}
			if _, evs := ui.prompt(t, a.NewSession(), "other"); len(only[dialog.NoticeEvent](evs)) != 1 {
				t.Errorf("another session was not told of the switch: %v", evs.kinds())
			}
			if got := modelsAsked(srv.Requests()); !slices.Equal(got, []string{"gemini-3.1-pro-preview-customtools", "gemini-3-flash-preview", "gemini-3-flash-preview", "gemini-3-flash-preview"}) {
				t.Errorf("models requested = %v", got)
			}
			if len(c.asked()) != 1 {
				t.Errorf("asked %d times", len(c.asked()))
			}
			// The log names the model that answered.
			resp := logs.FilterMessage("api_response").AllUntimed()
			if len(resp) != 3 || resp[0].ContextMap()["model"] != "gemini-3-flash-preview" {
				t.Errorf("api_response entries = %v", resp)
			}
		})
	}
}

func TestProQuotaUserDeclines(t *testing.T) {
	srv := geminitest.NewTestServer(t, dailyQuota(), geminitest.TextTurn("still pro"))
	c := always(dialog.Cancel)
	ui := front{confirmer: c}
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools"})
	s := a.NewSession()
	res, evs := ui.prompt(t, s, "hi")
	var apiErr genai.APIError
	if res.StopReason != dialog.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 429 {
		t.Fatalf("result = %+v, want the quota error", res)
	}
	if len(c.asked()) != 1 || len(only[dialog.NoticeEvent](evs)) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("asked %d times, events %v, %d requests", len(c.asked()), evs.kinds(), len(srv.Requests()))
	}
	ui.prompt(t, s, "again")
	if got := modelsAsked(srv.Requests()); !slices.Equal(got, []string{"gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview-customtools"}) {
		t.Errorf("models requested = %v", got)
	}
}

// Where nobody can be asked, Config.Fallback decides; by default the model
// is kept, as Gemini CLI keeps it when not interactive.
func TestProQuotaWithNobodyToAsk(t *testing.T) {
	cannotAsk := &confirmer{answer: func(context.Context, dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		return dialog.Cancel, fmt.Errorf("headless: %w", dialog.ErrCannotAsk)
	}}
	for _, tc := range []struct {
		name      string
		mode      agent.FallbackMode
		confirmer dialog.Confirmer
		switched  bool
	}{
		{"no confirmer, default", "", nil, false},
		{"no confirmer, ask", agent.FallbackAsk, nil, false},
		{"cannot ask, default", "", cannotAsk, false},
		{"no confirmer, always", agent.FallbackAlways, nil, true},
		{"cannot ask, always", agent.FallbackAlways, cannotAsk, true},
		{"no confirmer, never", agent.FallbackNever, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, dailyQuota())
			if tc.switched {
				srv.Push(geminitest.TextTurn("from flash"))
			}
			ui := front{confirmer: tc.confirmer}
			a, sl := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools", Fallback: tc.mode})
			res, evs := ui.prompt(t, a.NewSession(), "hi")
			if tc.switched {
				if res.Text != "from flash" || len(only[dialog.NoticeEvent](evs)) != 1 {
					t.Errorf("result = %+v, events %v", res, evs.kinds())
				}
				return
			}
			var apiErr genai.APIError
			if res.StopReason != dialog.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 429 {
				t.Errorf("result = %+v, want the quota error", res)
			}
			if len(sl.got()) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("a daily quota was retried: waits %v", sl.got())
			}
		})
	}
}

func TestFallbackNeverAsksNobody(t *testing.T) {
	srv := geminitest.NewTestServer(t, dailyQuota())
	c := always(dialog.ProceedOnce)
	ui := front{confirmer: c}
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools", Fallback: agent.FallbackNever})
	if res, _ := ui.prompt(t, a.NewSession(), "hi"); res.StopReason != dialog.StopError || len(c.asked()) != 0 {
		t.Errorf("result %+v after asking %d times", res, len(c.asked()))
	}
}

// Two 429s in a row on a Pro model are persistent: the fallback is offered
// without a third wait, and the attempts count afresh on Flash.
func TestPersistentRateLimitFallsBack(t *testing.T) {
	srv := geminitest.NewTestServer(t,
		geminitest.ErrorTurn(429, "Resource has been exhausted (e.g. check quota)."),
		geminitest.ErrorTurn(429, "Resource has been exhausted (e.g. check quota)."),
		geminitest.ErrorTurn(503, "overloaded"),
		geminitest.TextTurn("flash here"),
	)
	c := always(dialog.ProceedAlways)
	ui := front{confirmer: c}
	a, sl := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools", Retry: dialog.RetryPolicy{Rand: func() float64 { return 0.5 }}})
	res, evs := ui.prompt(t, a.NewSession(), "hi")
	if res.Text != "flash here" {
		t.Fatalf("result = %+v", res)
	}
	if got := modelsAsked(srv.Requests()); !slices.Equal(got, []string{"gemini-3.1-pro-preview-customtools", "gemini-3.1-pro-preview-customtools", "gemini-3-flash-preview", "gemini-3-flash-preview"}) {
		t.Errorf("models requested = %v", got)
	}
	if len(c.asked()) != 1 || !strings.HasPrefix(c.asked()[0].Details, "gemini-3.1-pro-preview-customtools is rate-limited: 2 requests in a row were refused (429 RESOURCE_EXHAUSTED).") {
		t.Errorf("asked %+v", c.asked())
	}
	// One wait on Pro, then on Flash the backoff starts again at attempt 1.
	want := []dialog.RetryInfo{
		{Attempt: 1, Delay: 10 * time.Millisecond, Reason: "the model is rate-limited (429 RESOURCE_EXHAUSTED)"},
		{Attempt: 1, Delay: 10 * time.Millisecond, Reason: "the model is overloaded (503 UNAVAILABLE)"},
	}
	if got := evs.retries(); !slices.Equal(got, want) {
		t.Errorf("retries = %+v\nwant %+v", got, want)
	}
	if len(sl.got()) != 2 {
		t.Errorf("waits = %v", sl.got())
	}
	if k := evs.kinds(); !slices.Equal(k[:3], []string{"RetryEvent", "NoticeEvent", "RetryEvent"}) {
		t.Errorf("events = %v", k)
	}
}

// Declining the fallback after persistent 429s stops the prompt; where
// nobody can be asked, the retries simply go on.
func TestPersistentRateLimitNotSwitched(t *testing.T) {
	rateLimited := geminitest.ErrorTurn(429, "Resource has been exhausted (e.g. check quota).")
	t.Run("declined", func(t *testing.T) {
		srv := geminitest.NewTestServer(t, rateLimited, rateLimited)
		ui := front{confirmer: always(dialog.Cancel)}
		a, _ := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools"})
		res, _ := ui.prompt(t, a.NewSession(), "hi")
		var apiErr genai.APIError
		if res.StopReason != dialog.StopError || !errors.As(res.Err, &apiErr) || apiErr.Code != 429 {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("nobody to ask", func(t *testing.T) {
		srv := geminitest.NewTestServer(t, rateLimited, rateLimited, rateLimited, geminitest.TextTurn("pro again"))
		a, sl := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools"})
		res, _ := prompt(t, a.NewSession(), "hi")
		if res.Text != "pro again" || len(sl.got()) != 3 {
			t.Errorf("result = %+v after waits %v", res, sl.got())
		}
	})
}

// Only a Pro model falls back; other models' quota errors end the prompt
// without asking.
func TestQuotaOnNonProModel(t *testing.T) {
	srv := geminitest.NewTestServer(t, dailyQuota())
	c := always(dialog.ProceedOnce)
	ui := front{confirmer: c}
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-3-flash-preview", Fallback: agent.FallbackAlways})
	res, _ := ui.prompt(t, a.NewSession(), "hi")
	if res.StopReason != dialog.StopError || len(c.asked()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("result %+v, asked %d times, %d requests", res, len(c.asked()), len(srv.Requests()))
	}
}

func TestCancelWhileAskingForFallback(t *testing.T) {
	srv := geminitest.NewTestServer(t, dailyQuota())
	ctx, cancel := context.WithCancel(context.Background())
	c := &confirmer{answer: func(ctx context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
		cancel()
		<-ctx.Done()
		return dialog.Cancel, ctx.Err()
	}}
	ui := front{confirmer: c}
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-3.1-pro-preview-customtools"})
	if res, _ := ui.promptCtx(ctx, a.NewSession(), "hi"); res.StopReason != dialog.StopCancelled {
		t.Errorf("result = %+v", res)
	}
}

// A Pro model named outright outside 0.61's chains has no fallback there:
// gemini-2.5-pro out of quota stops the prompt, nobody is asked.
func TestProQuotaOutsideAChainDoesNotFallBack(t *testing.T) {
	srv := geminitest.NewTestServer(t, dailyQuota())
	c := always(dialog.ProceedOnce)
	ui := front{confirmer: c}
	a, _ := newAgent(t, srv, agent.Config{Model: "gemini-2.5-pro", Fallback: agent.FallbackAlways})
	res, _ := ui.prompt(t, a.NewSession(), "hi")
	if res.StopReason != dialog.StopError || len(c.asked()) != 0 || len(srv.Requests()) != 1 {
		t.Errorf("result = %+v, asked %d, %d requests", res, len(c.asked()), len(srv.Requests()))
	}
}
