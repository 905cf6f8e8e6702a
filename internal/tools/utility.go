package tools

import (
	"context"

	"google.golang.org/genai"
)

// Utility makes one-off, non-streaming model calls for tools that need the
// model's help: replace's last correction, web_fetch's summary,
// google_web_search. The agent provides it over the same content generator
// as the chat, with the same retry policy; the calls do not enter any
// session's history.
type Utility interface {
	// GenerateContent asks the model Gemini CLI 0.61 makes the call on:
	// alias is its model config alias (models.WebSearch, ...), which
	// decides the model and its generation config (temperature, thinking).
	// config carries what the call needs (a system instruction, a response
	// schema, the googleSearch tool).
	GenerateContent(ctx context.Context, alias string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}
