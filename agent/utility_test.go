package agent_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/auth"
)

// A tool's utility call goes to the Flash model as one generateContent
// request, retried on a server error like any model request.
func TestUtilityCallsTheFlashModelWithRetry(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.ErrorTurn(503, "overloaded"), geminitest.TextTurn("a summary"))
	gen := auth.NewGenerator(auth.Auth{
		Type:   auth.GeminiAPIKey,
		Config: genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}},
	})
	var waits int
	u := agent.NewUtility(gen, "", agent.RetryPolicy{Sleep: func(ctx context.Context, _ time.Duration) error { waits++; return ctx.Err() }})
	resp, err := u.GenerateContent(t.Context(), []*genai.Content{genai.NewContentFromText("summarise", genai.RoleUser)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "a summary" || waits != 1 {
		t.Errorf("text %q after %d waits", resp.Text(), waits)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Method != "generateContent" || reqs[1].Model != agent.DefaultUtilityModel || len(reqs[1].Contents) != 1 {
		t.Errorf("requests = %+v", reqs)
	}
}
