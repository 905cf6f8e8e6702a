package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

func TestSessionsRunInParallel(t *testing.T) {
	// Each session's tool waits until both sessions are inside it, which
	// only happens if neither waits for the other.
	var arrived sync.WaitGroup
	arrived.Add(2)
	barrier := fakeTool{name: "barrier", build: func(map[string]any) (tools.Call, error) {
		return fakeCall{title: "barrier", exec: func(ctx context.Context) (tools.Result, error) {
			arrived.Done()
			both := make(chan struct{})
			go func() { arrived.Wait(); close(both) }()
			select {
			case <-both:
				return tools.Result{Output: "met"}, nil
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			}
		}}, nil
	}}
	meet := geminitest.CallTurn(geminitest.Call("barrier", nil))
	srv := geminitest.NewTestServer(t, meet, meet, geminitest.TextTurn("done"), geminitest.TextTurn("done"))
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(barrier)})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	results := make(chan dialog.PromptResult, 2)
	for _, s := range []*agent.Session{a.NewSession(), a.NewSession()} {
		go func() {
			res, _ := promptCtx(ctx, s, "meet")
			results <- res
		}()
	}
	for range 2 {
		if res := <-results; res.StopReason != dialog.StopEndTurn || res.Text != "done" {
			t.Errorf("result = %+v", res)
		}
	}
	// Each session's history holds only its own conversation.
	for _, r := range srv.Requests()[2:] {
		if len(r.Contents) != 3 {
			t.Errorf("second request of a session has %d contents: %s", len(r.Contents), toJSON(r.Contents))
		}
	}
}

func TestLogging(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	srv := geminitest.NewTestServer(t,
		geminitest.Turn{
			Chunks: []geminitest.Chunk{{Text: "Hi "}, {Text: "there"}},
			Usage:  &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 11, CandidatesTokenCount: 2, TotalTokenCount: 13},
		},
		geminitest.ErrorTurn(400, "bad things"),
	)
	now := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	a, _ := newAgent(t, srv, agent.Config{
		Logger:   zap.New(core),
		AuthType: auth.GeminiAPIKey,
		Model:    "gemini-log",
		Now:      func() time.Time { return now },
	})
	s := a.NewSession()
	prompt(t, s, "hello model")
	prompt(t, s, "again")

	entries := logs.AllUntimed()
	var names []string
	for _, e := range entries {
		names = append(names, e.Message)
	}
	if strings.Join(names, ",") != "api_request,api_response,api_request,api_error" {
		t.Fatalf("log entries = %v", names)
	}
	for _, e := range entries {
		f := e.ContextMap()
		if f["event.name"] != e.Message || f["event.timestamp"] != "2026-05-04T03:02:01Z" || f["model"] != "gemini-log" {
			t.Errorf("%s fields = %v", e.Message, f)
		}
	}
	req := entries[0].ContextMap()
	if !strings.Contains(req["request_text"].(string), "hello model") || req["prompt_id"] != s.ID()+"########1" {
		t.Errorf("api_request = %v", req)
	}
	resp := entries[1].ContextMap()
	usage, _ := resp["usage_metadata"].(map[string]any)
	if resp["response_text"] != "Hi there" || resp["auth_type"] != "gemini-api-key" || resp["duration_ms"] != int64(0) ||
		usage["promptTokenCount"] != int32(11) || usage["totalTokenCount"] != int32(13) {
		t.Errorf("api_response = %v", resp)
	}
	apiErr := entries[3]
	f := apiErr.ContextMap()
	if apiErr.Level != zapcore.ErrorLevel || f["error_type"] != "INVALID_ARGUMENT" || f["status_code"] != int64(400) ||
		!strings.Contains(f["error_message"].(string), "bad things") || f["prompt_id"] != s.ID()+"########2" || f["auth_type"] != "gemini-api-key" {
		t.Errorf("api_error = %v at %v", f, apiErr.Level)
	}
	if _, ok := f["duration_ms"]; !ok {
		t.Error("api_error without duration_ms")
	}
}

func TestUsageEvents(t *testing.T) {
	u1 := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 3, ThoughtsTokenCount: 4, TotalTokenCount: 17}
	u2 := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 20, CandidatesTokenCount: 1, TotalTokenCount: 21}
	call := geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"path": "a"}))
	call.Usage = u1
	text := geminitest.TextTurn("ok")
	text.Usage = u2
	again := geminitest.TextTurn("again")
	again.Usage = u2
	srv := geminitest.NewTestServer(t, call, text, again)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(readTool())})
	s := a.NewSession()
	res, evs := prompt(t, s, "hi")
	us := only[dialog.UsageEvent](evs)
	first := dialog.Usage{PromptTokens: 10, CandidatesTokens: 3, ThoughtsTokens: 4, TotalTokens: 17}
	if len(us) != 2 || us[0].Usage.Response != first || us[0].Usage.Prompt != first || us[0].Usage.Session != first {
		t.Fatalf("usage events = %+v", us)
	}
	sum := dialog.Usage{PromptTokens: 30, CandidatesTokens: 4, ThoughtsTokens: 4, TotalTokens: 38}
	if res.Usage != sum || us[1].Usage.Prompt != sum || us[1].Usage.Session != sum {
		t.Errorf("summed usage = %+v, events %+v", res.Usage, us[1])
	}
	// The next prompt's sums start again; the session's go on.
	_, evs = prompt(t, s, "more")
	us = only[dialog.UsageEvent](evs)
	second := dialog.Usage{PromptTokens: 20, CandidatesTokens: 1, TotalTokens: 21}
	if len(us) != 1 || us[0].Usage.Prompt != second || us[0].Usage.Session != (dialog.Usage{PromptTokens: 50, CandidatesTokens: 5, ThoughtsTokens: 4, TotalTokens: 59}) {
		t.Errorf("second prompt's usage events = %+v", us)
	}
	if infos := a.LiveSessions(); len(infos) != 1 || infos[0].Usage.TotalTokens != 59 || infos[0].Prompts != 2 || infos[0].Title != "hi" {
		t.Errorf("session info = %+v", infos)
	}
}

// Prompts and answers are logged at debug level only: an info log (what
// `serve --log-file` writes by default) holds no text the user wrote.
func TestLogsNoTextAboveDebug(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("the secret answer"))
	a, _ := newAgent(t, srv, agent.Config{Logger: zap.New(core)})
	prompt(t, a.NewSession(), "my secret prompt")
	if logs.Len() == 0 {
		t.Fatal("nothing logged at info")
	}
	for _, e := range logs.All() {
		fields := fmt.Sprint(e.ContextMap())
		if strings.Contains(fields, "secret") || strings.Contains(e.Message, "secret") {
			t.Errorf("%s at %v holds the prompt or the answer: %s", e.Message, e.Level, fields)
		}
	}
}
