package agent_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// The thinking config goes only to models that think (gemini-2.5 and
// later, as Gemini CLI judges), with the budget when one is set.
func TestThinkingConfigPerModel(t *testing.T) {
	budget := func(n int32) *int32 { return &n }
	tests := []struct {
		model  string
		budget *int32
		want   string // the request's thinkingConfig; "" for none
	}{
		{"gemini-2.5-pro", nil, `"thinkingConfig":{"includeThoughts":true}`},
		{"gemini-2.5-flash", budget(1024), `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}`},
		{"gemini-2.5-flash", budget(0), `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":0}`},
		{"gemini-3-pro-preview", budget(-1), `"thinkingConfig":{"includeThoughts":true,"thinkingBudget":-1}`},
		{"gemini-2.0-flash", budget(1024), ""},
		{"models/gemini-2.0-flash-lite", nil, ""},
		{"gemini-1.5-pro", nil, ""},
	}
	for _, tt := range tests {
		srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
		a, _ := newAgent(t, srv, agent.Config{Model: tt.model, Thinking: true, ThinkingBudget: tt.budget})
		prompt(t, a.NewSession(), "hi")
		body := string(srv.Requests()[0].Body)
		_, cfg, _ := strings.Cut(body, `"thinkingConfig":`)
		cfg, _, _ = strings.Cut(cfg, "}")
		got := ""
		if strings.Contains(body, `"thinkingConfig":`) {
			got = `"thinkingConfig":` + cfg + "}"
		}
		if got != tt.want {
			t.Errorf("%s, budget %v: sent %q, want %q", tt.model, deref(tt.budget), got, tt.want)
		}
	}
}

func deref(p *int32) any {
	if p == nil {
		return "unset"
	}
	return *p
}
