package agent_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

func utilityOver(t *testing.T, srv *geminitest.Server, sleep func(context.Context, time.Duration) error) interface {
	GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
} {
	t.Helper()
	gen := auth.NewGenerator(auth.Auth{
		Type:   auth.GeminiAPIKey,
		Config: genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}},
	})
	return agent.NewUtility(gen, dialog.RetryPolicy{Sleep: sleep})
}

// A tool's utility call is one generateContent request, retried on a
// server error like any model request.
func TestUtilityCallRetries(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(503, "overloaded"), geminitest.TextTurn("a summary"))
	var waits int
	u := utilityOver(t, srv, func(ctx context.Context, _ time.Duration) error { waits++; return ctx.Err() })
	resp, err := u.GenerateContent(t.Context(), models.WebFetchFallback, []*genai.Content{genai.NewContentFromText("summarise", genai.RoleUser)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "a summary" || waits != 1 {
		t.Errorf("text %q after %d waits", resp.Text(), waits)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Method != "generateContent" || len(reqs[1].Contents) != 1 {
		t.Errorf("requests = %+v", reqs)
	}
}

// Each utility call goes to the model, and with the generation config,
// Gemini CLI 0.61 sends its model config alias with for an API key
// (bench/compare-0.61/models.sh shows them side by side): the tools' on
// gemini-3-flash-preview at temperature 0 and topP 1; a flash-lite alias
// on gemini-3.5-flash-lite with that model's chat config, as 0.61's
// applyModelSelection swaps it in. What the call sets itself is kept.
func TestUtilityModelAndConfigPerAlias(t *testing.T) {
	for _, c := range []struct {
		alias, model      string
		temperature, topP float32
		topK              float32
		thoughts          bool
		level             genai.ThinkingLevel
		noThinkingConfig  bool
	}{
		{models.WebSearch, models.Gemini3FlashPreview, 0, 1, 0, false, "", true},
		{models.WebFetchFallback, models.Gemini3FlashPreview, 0, 1, 0, false, "", true},
		{models.LLMEditFixer, models.Gemini3FlashPreview, 0, 1, 0, false, "", true},
		{models.EditCorrector, models.LatestFlashLite, 1, 0.95, 64, true, genai.ThinkingLevelHigh, false},
	} {
		t.Run(c.alias, func(t *testing.T) {
			srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
			u := utilityOver(t, srv, nil)
			config := &genai.GenerateContentConfig{
				SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser),
				Tools:             []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}},
			}
			if _, err := u.GenerateContent(t.Context(), c.alias, genai.Text("q"), config); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if req.Model != c.model {
				t.Errorf("model %q, want %q", req.Model, c.model)
			}
			gc := req.GenerationConfig
			if gc == nil || gc.Temperature == nil || *gc.Temperature != c.temperature || gc.TopP == nil || *gc.TopP != c.topP {
				t.Fatalf("generationConfig = %+v, want temperature %v, topP %v", gc, c.temperature, c.topP)
			}
			if (c.topK == 0) != (gc.TopK == nil) || (gc.TopK != nil && *gc.TopK != c.topK) {
				t.Errorf("topK = %v, want %v", gc.TopK, c.topK)
			}
			switch tc := gc.ThinkingConfig; {
			case c.noThinkingConfig && tc != nil:
				t.Errorf("thinkingConfig = %+v, want none", tc)
			case !c.noThinkingConfig && (tc == nil || tc.IncludeThoughts != c.thoughts || tc.ThinkingLevel != c.level):
				t.Errorf("thinkingConfig = %+v, want thoughts %v, level %q", tc, c.thoughts, c.level)
			}
			if req.SystemInstruction == nil || req.SystemInstruction.Parts[0].Text != "be brief" || len(req.Tools) != 1 || req.Tools[0].GoogleSearch == nil {
				t.Errorf("the call's own config was not kept: %+v, %+v", req.SystemInstruction, req.Tools)
			}
			if config.Temperature != nil || config.ThinkingConfig != nil {
				t.Errorf("the caller's config was changed: %+v", config)
			}
		})
	}
}
