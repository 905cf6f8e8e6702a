package agent

import (
	"errors"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// The turn's telemetry: Gemini CLI 0.61's user_prompt, api_request,
// api_response, api_error and tool_call events, told to Config.Telemetry
// (which decides what is exported and leaves out what logPrompts and the
// credentials rule keep in). Each is a fact the turn has at the point 0.61
// logs it; none blocks.

// recorder is Config.Telemetry, or one that records nothing.
func (a *Agent) recorder() telemetry.Recorder {
	if a.cfg.Telemetry == nil {
		return telemetry.Nop{}
	}
	return a.cfg.Telemetry
}

func (t *turn) recordPrompt(text string) {
	t.s.agent.recorder().UserPrompt(telemetry.UserPrompt{SessionID: t.s.id, PromptID: t.promptID, Prompt: text})
}

func (t *turn) recordRequest(model, requestText string) {
	t.s.agent.recorder().APIRequest(telemetry.APIRequest{SessionID: t.s.id, PromptID: t.promptID, Model: model, RequestText: requestText})
}

func (t *turn) recordResponse(model string, d time.Duration, usage *genai.GenerateContentResponseUsageMetadata, text string, finish genai.FinishReason) {
	e := telemetry.APIResponse{SessionID: t.s.id, PromptID: t.promptID, Model: model, Duration: d, ResponseText: text}
	if usage != nil {
		e.Usage = telemetry.Usage{
			Input:    int64(usage.PromptTokenCount),
			Output:   int64(usage.CandidatesTokenCount),
			Cached:   int64(usage.CachedContentTokenCount),
			Thoughts: int64(usage.ThoughtsTokenCount),
			Tool:     int64(usage.ToolUsePromptTokenCount),
			Total:    int64(usage.TotalTokenCount),
		}
	}
	if finish != "" {
		e.FinishReasons = []string{string(finish)}
	}
	t.s.agent.recorder().APIResponse(e)
}

func (t *turn) recordAPIError(model string, d time.Duration, err error) {
	e := telemetry.APIError{SessionID: t.s.id, PromptID: t.promptID, Model: model, Duration: d, Error: err.Error(), ErrorType: errorType(err)}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		e.StatusCode = apiErr.Code
	}
	t.s.agent.recorder().APIError(e)
}

// recordToolCall is a call's tool_call: success is 0.61's (the tool ran
// and did not fail), the decision the user's answer when one was asked.
func (t *turn) recordToolCall(run *toolRun, res tools.Result) {
	t.s.agent.recorder().ToolCall(telemetry.ToolCall{
		SessionID: t.s.id,
		PromptID:  t.promptID,
		Name:      run.fc.Name,
		Args:      run.fc.Args,
		Duration:  t.s.agent.cfg.Now().Sub(run.start),
		Success:   res.Status == dialog.StatusOK,
		Decision:  string(run.decision),
		Error:     res.Error,
	})
}
