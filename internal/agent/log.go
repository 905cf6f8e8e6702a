package agent

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/genai"
)

// apiLog writes Gemini CLI's three telemetry events: api_request,
// api_response and api_error.
type apiLog struct {
	log      *zap.Logger
	authType string
	now      func() time.Time
}

func (l apiLog) event(name string, fields ...zap.Field) []zap.Field {
	return append([]zap.Field{
		zap.String("event.name", name),
		zap.String("event.timestamp", l.now().UTC().Format(time.RFC3339Nano)),
	}, fields...)
}

func (l apiLog) request(model, promptID, requestText string) {
	fields := l.event("api_request",
		zap.String("model", model),
		zap.String("prompt_id", promptID),
	)
	l.log.Info("api_request", l.withText(fields, "request_text", requestText)...)
}

// withText adds what the user or the model wrote to fields, at debug level
// only: prompts and file contents stay out of an info log that an editor
// may show or a user may paste into a bug report.
func (l apiLog) withText(fields []zap.Field, key, text string) []zap.Field {
	if !l.log.Core().Enabled(zapcore.DebugLevel) {
		return fields
	}
	return append(fields, zap.String(key, text))
}

func (l apiLog) response(model, promptID string, d time.Duration, usage *genai.GenerateContentResponseUsageMetadata, responseText string) {
	fields := l.event("api_response",
		zap.String("model", model),
		zap.Int64("duration_ms", d.Milliseconds()),
		zap.String("prompt_id", promptID),
		zap.String("auth_type", l.authType),
		zap.Object("usage_metadata", usageFields{usage}),
	)
	l.log.Info("api_response", l.withText(fields, "response_text", responseText)...)
}

func (l apiLog) error(model, promptID string, d time.Duration, err error) {
	level := zapcore.ErrorLevel
	if errors.Is(err, context.Canceled) {
		level = zapcore.InfoLevel // the user stopped it
	}
	fields := l.event("api_error",
		zap.String("model", model),
		zap.String("error_message", err.Error()),
		zap.Int64("duration_ms", d.Milliseconds()),
		zap.String("prompt_id", promptID),
		zap.String("auth_type", l.authType),
		zap.String("error_type", errorType(err)),
	)
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		fields = append(fields, zap.Int("status_code", apiErr.Code))
	}
	l.log.Log(level, "api_error", fields...)
}

// retry logs a retry at info level: the front end tells the user of each
// (a retry event), so on stderr, where warnings go by default, it would
// say it twice.
func (l apiLog) retry(model, promptID string, attempt int, err error, wait time.Duration) {
	l.log.Info("retrying model request",
		zap.String("model", model),
		zap.String("prompt_id", promptID),
		zap.Int("attempt", attempt),
		zap.Duration("wait", wait),
		zap.Error(err),
	)
}

// errorType classifies err for api_error: the API status (e.g.
// RESOURCE_EXHAUSTED), cancelled, deadline_exceeded, or unknown.
func errorType(err error) string {
	var apiErr genai.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Status != "":
		return apiErr.Status
	case errors.As(err, &apiErr):
		return "HTTP_ERROR"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	}
	return "unknown"
}

// usageFields logs usage metadata under the API's own names.
type usageFields struct {
	u *genai.GenerateContentResponseUsageMetadata
}

func (f usageFields) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	if f.u == nil {
		return nil
	}
	enc.AddInt32("promptTokenCount", f.u.PromptTokenCount)
	enc.AddInt32("candidatesTokenCount", f.u.CandidatesTokenCount)
	enc.AddInt32("thoughtsTokenCount", f.u.ThoughtsTokenCount)
	enc.AddInt32("cachedContentTokenCount", f.u.CachedContentTokenCount)
	enc.AddInt32("toolUsePromptTokenCount", f.u.ToolUsePromptTokenCount)
	enc.AddInt32("totalTokenCount", f.u.TotalTokenCount)
	return nil
}
