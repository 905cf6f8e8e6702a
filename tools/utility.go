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
	// GenerateContent asks the utility model. config carries what the call
	// needs (a system instruction, a response schema, the googleSearch
	// tool); the utility adds nothing to it.
	GenerateContent(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}
