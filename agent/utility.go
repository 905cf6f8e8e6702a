package agent

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/models"
	"github.com/gemini-ls/gemini-ls/tools"
)

// DefaultUtilityModel answers tools' utility calls (web search, web fetch,
// fixing an edit): the model Gemini CLI 0.61 gives those calls.
const DefaultUtilityModel = models.UtilityModel

// utility is the tools.Utility over a content generator.
type utility struct {
	gen   ContentGenerator
	model string
	retry RetryPolicy
}

// NewUtility returns the tools' utility model client: gen's GenerateContent
// with model (DefaultUtilityModel when empty), retried as chat requests are.
func NewUtility(gen ContentGenerator, model string, retry RetryPolicy) tools.Utility {
	if model == "" {
		model = DefaultUtilityModel
	}
	return &utility{gen: gen, model: model, retry: retry}
}

func (u *utility) GenerateContent(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	var resp *genai.GenerateContentResponse
	err := u.retry.do(ctx, func() error {
		var err error
		resp, err = u.gen.GenerateContent(ctx, u.model, contents, config)
		return err
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("utility call to %s: %w", u.model, err)
	}
	return resp, nil
}
