package lsp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// A usage update tells how full the model's window was (contextUsed of
// contextSize) and the session's cached tokens, which the editors show.
func TestUsageUpdateCarriesContextAndCachedTokens(t *testing.T) {
	var sent []update
	report := dialog.UsageReport{
		Response: dialog.Usage{PromptTokens: 52000, CachedTokens: 40000, TotalTokens: 52012},
		Session:  dialog.Usage{PromptTokens: 90000, CachedTokens: 60000, TotalTokens: 90100},
		Context:  dialog.ContextFill{Used: 52000, Size: 1048576},
	}
	updates{"s", func(u update) { sent = append(sent, u) }, nil}.Show(context.Background(), dialog.Subagent{}, dialog.UsageEvent{Usage: report})
	if len(sent) != 1 {
		t.Fatalf("sent %d updates, want one", len(sent))
	}
	b, err := json.Marshal(sent[0])
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ContextUsed, ContextSize int
		CachedTokens             int
		SessionUsage             struct{ CachedTokens int }
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.ContextUsed != 52000 || got.ContextSize != 1048576 || got.CachedTokens != 40000 || got.SessionUsage.CachedTokens != 60000 {
		t.Errorf("usage update = %s", b)
	}
}
