package agent

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genai"
)

// A request's text (its input, tool outputs whole) is encoded only for a
// log at debug level or a telemetry that is on: with neither, an input
// that cannot be encoded is not, and with a debug log it is.
func TestRequestTextEncodedOnlyWhenKept(t *testing.T) {
	input := &genai.Content{Role: "user", Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		Name: "read_file", Response: map[string]any{"output": make(chan int)}, // no JSON for it
	}}}}
	for _, level := range []zapcore.Level{zapcore.InfoLevel, zapcore.DebugLevel} {
		core, logs := observer.New(level)
		a := &Agent{cfg: Config{Model: "gemini-2.5-pro"}, log: apiLog{log: zap.New(core), now: time.Now}}
		tn := &turn{s: &Session{agent: a}, ctx: context.Background()}
		err := tn.logRequest(modelRequest{model: "gemini-2.5-pro"}, input)
		switch {
		case level == zapcore.InfoLevel && err != nil:
			t.Errorf("at info level, with telemetry off, the request was encoded: %v", err)
		case level == zapcore.DebugLevel && err == nil:
			t.Error("at debug level the request was not encoded")
		case level == zapcore.InfoLevel && logs.FilterMessage("api_request").Len() != 1:
			t.Errorf("logged %v, want the api_request event", logs.All())
		}
	}
}
