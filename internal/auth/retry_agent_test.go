package auth_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/codeassist/codeassisttest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
)

// The agent's retry waits what the HTTP Retry-After header said, on both
// backends (the wait recorded, not slept).
func TestAgentRetryObeysRetryAfter(t *testing.T) {
	turns := func() []geminitest.Turn {
		return []geminitest.Turn{
			{Err: &geminitest.APIError{Code: 429, Message: "slow down", RetryAfter: 7 * time.Second}},
			{Err: &geminitest.APIError{Code: 503, Message: "busy", RetryAfter: 2 * time.Second}},
			geminitest.TextTurn("ok"),
		}
	}
	gemini := geminitest.NewTestServer(t, turns()...)
	ca := codeassisttest.NewTestServer(t, codeassisttest.Options{
		AccessToken: "tok", CurrentTier: &codeassisttest.Tier{ID: "standard-tier"}, Project: "p",
	}, turns()...)
	home := t.TempDir()
	writeLogin(t, home, map[string]any{"access_token": "tok", "expiry_date": time.Now().Add(time.Hour).UnixMilli()})
	for name, a := range map[string]auth.Auth{
		"gemini api":  resolve(t, "", map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": gemini.URL}),
		"code assist": resolve(t, "oauth-personal", map[string]string{"HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": ca.URL}),
	} {
		t.Run(name, func(t *testing.T) {
			var waits []time.Duration
			u := agent.NewUtility(auth.NewGenerator(a), dialog.RetryPolicy{
				Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() },
			})
			resp, err := u.GenerateContent(context.Background(), models.WebSearch, genai.Text("x"), nil)
			if err != nil || resp.Text() != "ok" {
				t.Fatalf("GenerateContent = %v, %v", resp, err)
			}
			if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != 2*time.Second {
				t.Errorf("waits = %v, want [7s 2s] from Retry-After", waits)
			}
		})
	}
}
