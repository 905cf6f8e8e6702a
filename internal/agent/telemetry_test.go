package agent_test

import (
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// recorded is every event the agent told telemetry.
type recorded struct {
	mu        sync.Mutex
	prompts   []telemetry.UserPrompt
	requests  []telemetry.APIRequest
	responses []telemetry.APIResponse
	errors    []telemetry.APIError
	calls     []telemetry.ToolCall
}

func (r *recorded) Config(telemetry.StartSession) {}
func (r *recorded) UserPrompt(e telemetry.UserPrompt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prompts = append(r.prompts, e)
}
func (r *recorded) APIRequest(e telemetry.APIRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, e)
}
func (r *recorded) APIResponse(e telemetry.APIResponse) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.responses = append(r.responses, e)
}
func (r *recorded) APIError(e telemetry.APIError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, e)
}
func (r *recorded) HookCall(telemetry.HookCall) {} // the hooks' Runner tells them

func (r *recorded) ToolCall(e telemetry.ToolCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, e)
}

// TestTelemetryEvents: a prompt, its model requests and their answers, a
// tool call the user accepted and a failed request reach Config.Telemetry
// with the facts 0.61's events carry.
func TestTelemetryEvents(t *testing.T) {
	calls := geminitest.CallTurn(geminitest.Call(tools.ShellName, map[string]any{"command": "go test"}))
	calls.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 4, CachedContentTokenCount: 6, TotalTokenCount: 14}
	done := geminitest.TextTurn("all green")
	srv := geminitest.NewTestServer(t, calls, done, geminitest.ErrorTurn(400, "bad request"))
	rec := &recorded{}
	sh := &shellTool{}
	ui := front{confirmer: always(dialog.ProceedOnce)}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(sh.tool()), Telemetry: rec})
	s := a.NewSession()
	if res, _ := ui.prompt(t, s, "run the tests"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt = %+v", res)
	}
	ui.prompt(t, s, "again")

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.prompts) != 2 || rec.prompts[0].Prompt != "run the tests" || rec.prompts[0].SessionID != s.ID() || rec.prompts[0].PromptID == "" {
		t.Errorf("user prompts = %+v", rec.prompts)
	}
	if len(rec.requests) != 3 || rec.requests[0].Model != "gemini-test" || !strings.Contains(rec.requests[0].RequestText, "run the tests") {
		t.Errorf("api requests = %+v", rec.requests)
	}
	if len(rec.responses) != 2 {
		t.Fatalf("api responses = %+v", rec.responses)
	}
	if u := rec.responses[0].Usage; u != (telemetry.Usage{Input: 10, Output: 4, Cached: 6, Total: 14}) || rec.responses[1].ResponseText != "all green" {
		t.Errorf("api responses = %+v", rec.responses)
	}
	if rec.responses[0].PromptID != rec.prompts[0].PromptID {
		t.Errorf("response prompt_id %q, prompt's %q", rec.responses[0].PromptID, rec.prompts[0].PromptID)
	}
	if len(rec.calls) != 1 || rec.calls[0].Name != tools.ShellName || !rec.calls[0].Success || rec.calls[0].Decision != "accept" || rec.calls[0].Args["command"] != "go test" {
		t.Errorf("tool calls = %+v", rec.calls)
	}
	if len(rec.errors) != 1 || rec.errors[0].StatusCode != 400 || rec.errors[0].PromptID != rec.prompts[1].PromptID {
		t.Errorf("api errors = %+v", rec.errors)
	}
}

// A long prompt's request is logged with its text cut to a head of whole
// characters (a prompt may be 16 MiB, copied three times into the log
// line), and given whole to a telemetry that records it.
func TestLongRequestLoggedByItsHead(t *testing.T) {
	long := strings.Repeat("néé ", 150<<10) // 64 KiB ends inside an é
	for _, withTelemetry := range []bool{false, true} {
		core, logs := observer.New(zapcore.DebugLevel)
		srv := geminitest.NewTestServer(t, geminitest.TextTurn("read it"))
		cfg := agent.Config{Logger: zap.New(core)}
		rec := &recorded{}
		if withTelemetry {
			cfg.Telemetry = rec
		}
		a, _ := newAgent(t, srv, cfg)
		prompt(t, a.NewSession(), long)
		var text string
		for _, e := range logs.AllUntimed() {
			if e.Message == "api_request" {
				text, _ = e.ContextMap()["request_text"].(string)
			}
		}
		if !withTelemetry {
			if len(text) > 80<<10 || !strings.Contains(text, "néé néé") || !strings.Contains(text, " bytes more]") || strings.Contains(text, `\ufffd`) {
				t.Errorf("logged request of a %d-byte prompt: %d bytes, %.60q…%q", len(long), len(text), text, text[max(0, len(text)-60):])
			}
			continue
		}
		rec.mu.Lock()
		if len(rec.requests) != 1 || !strings.Contains(rec.requests[0].RequestText, long) || text != rec.requests[0].RequestText {
			t.Errorf("with telemetry on, the request's text is not whole in the telemetry and the log")
		}
		rec.mu.Unlock()
	}
}
