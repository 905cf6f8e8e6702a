package agent

import (
	"context"
	"fmt"
	"iter"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// ContentGenerator hides which backend serves the model.
type ContentGenerator interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
	CountTokens(ctx context.Context, model string, contents []*genai.Content, config *genai.CountTokensConfig) (*genai.CountTokensResponse, error)
}

// usageOf is a response's usage metadata (nil for none) as a Usage.
func usageOf(m *genai.GenerateContentResponseUsageMetadata) dialog.Usage {
	if m == nil {
		return dialog.Usage{}
	}
	return dialog.Usage{
		PromptTokens:     m.PromptTokenCount,
		CandidatesTokens: m.CandidatesTokenCount,
		ThoughtsTokens:   m.ThoughtsTokenCount,
		TotalTokens:      m.TotalTokenCount,
		CachedTokens:     m.CachedContentTokenCount,
		ToolUseTokens:    m.ToolUsePromptTokenCount,
	}
}

// EmptyAnswerError is a model answer with nothing to show or run, after
// Attempts requests: blocked, cut before any text, or simply empty.
type EmptyAnswerError struct {
	What         string // what the model returned, in words
	FinishReason genai.FinishReason
	Attempts     int
}

// SafetyBlocked reports whether the safety filters stopped the answer,
// for apierror to say how to go on.
func (e *EmptyAnswerError) SafetyBlocked() bool {
	switch e.FinishReason {
	case genai.FinishReasonSafety, genai.FinishReasonImageSafety, genai.FinishReasonBlocklist, genai.FinishReasonProhibitedContent, genai.FinishReasonSPII:
		return true
	}
	return false
}

func (e *EmptyAnswerError) Error() string {
	msg := "the model returned no answer: " + e.What
	if e.FinishReason != "" {
		msg += fmt.Sprintf(" (finish reason %s)", e.FinishReason)
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf("; asked %d times", e.Attempts)
	}
	return msg
}
