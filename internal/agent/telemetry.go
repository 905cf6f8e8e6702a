package agent

import (
	"errors"
	"time"

	"go.uber.org/zap/zapcore"
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

// promptEvents tells the log and the telemetry of one prompt's events.
type promptEvents struct {
	log       apiLog
	rec       telemetry.Recorder
	sessionID string
	promptID  string
	now       func() time.Time
}

// events is the turn's promptEvents.
func (t *turn) events() promptEvents {
	a := t.s.agent
	return promptEvents{log: a.log, rec: a.recorder(), sessionID: t.s.id, promptID: t.promptID, now: a.cfg.Now}
}

func (e promptEvents) prompt(text string) {
	e.rec.UserPrompt(telemetry.UserPrompt{SessionID: e.sessionID, PromptID: e.promptID, Prompt: text})
}

// keepsRequestText says whether request does anything with its text: the
// log writes it at debug level only, and telemetry that is off drops it.
func (e promptEvents) keepsRequestText() bool {
	_, off := e.rec.(telemetry.Nop)
	return !off || e.log.log.Core().Enabled(zapcore.DebugLevel)
}

// recordsRequestText says whether the telemetry keeps request's text,
// which it is then given whole; the log alone gets long texts cut
// (textsCut).
func (e promptEvents) recordsRequestText() bool {
	_, off := e.rec.(telemetry.Nop)
	return !off
}

// request logs a model request to model, and records it.
func (e promptEvents) request(model, requestText string) {
	e.log.request(model, e.promptID, requestText)
	e.rec.APIRequest(telemetry.APIRequest{SessionID: e.sessionID, PromptID: e.promptID, Model: model, RequestText: requestText})
}

// response logs model's answer, given in d, and records it.
func (e promptEvents) response(model string, d time.Duration, usage *genai.GenerateContentResponseUsageMetadata, text string, finish genai.FinishReason) {
	e.log.response(model, e.promptID, d, usage, text)
	ev := telemetry.APIResponse{SessionID: e.sessionID, PromptID: e.promptID, Model: model, Duration: d, ResponseText: text}
	if usage != nil {
		ev.Usage = telemetry.Usage{
			Input:    int64(usage.PromptTokenCount),
			Output:   int64(usage.CandidatesTokenCount),
			Cached:   int64(usage.CachedContentTokenCount),
			Thoughts: int64(usage.ThoughtsTokenCount),
			Tool:     int64(usage.ToolUsePromptTokenCount),
			Total:    int64(usage.TotalTokenCount),
		}
	}
	if finish != "" {
		ev.FinishReasons = []string{string(finish)}
	}
	e.rec.APIResponse(ev)
}

// apiError logs a failed request to model, failed after d, and records it.
func (e promptEvents) apiError(model string, d time.Duration, err error) {
	e.log.error(model, e.promptID, d, err)
	ev := telemetry.APIError{SessionID: e.sessionID, PromptID: e.promptID, Model: model, Duration: d, Error: err.Error(), ErrorType: errorType(err)}
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		ev.StatusCode = apiErr.Code
	}
	e.rec.APIError(ev)
}

// toolCall is a call's tool_call: success is 0.61's (the tool ran
// and did not fail), the decision the user's answer when one was asked.
func (e promptEvents) toolCall(run *toolRun, res tools.Result) {
	e.rec.ToolCall(telemetry.ToolCall{
		SessionID: e.sessionID,
		PromptID:  e.promptID,
		Name:      run.fc.Name,
		Args:      run.ranWith(),
		Duration:  e.now().Sub(run.start),
		Success:   res.Status == dialog.StatusOK,
		Decision:  string(run.decision),
		Error:     res.Error,
	})
}
