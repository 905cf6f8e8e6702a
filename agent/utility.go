package agent

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/tools"
)

// DefaultUtilityModel answers tools' utility calls, as Gemini CLI's
// helper calls use its Flash model.
const DefaultUtilityModel = "gemini-2.5-flash"

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
