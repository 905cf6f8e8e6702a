package builtin_test

import (
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// /stats says how much of the session's input the model's context cache
// served and how full the window was at the last request; /stats model
// has 0.61's Cache Reads row once the cache served some.
func TestStatsShowCachedTokensAndContext(t *testing.T) {
	first := geminitest.TextTurn("One.")
	first.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CandidatesTokenCount: 4, TotalTokenCount: 1004}
	second := geminitest.TextTurn("Two.")
	second.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 3000, CachedContentTokenCount: 1000, CandidatesTokenCount: 4, TotalTokenCount: 3004}
	h := newHarness(t, first, second)
	env := h.conversation()
	h.prompt(env, "one")
	if got := h.answer(env, "/stats model"); strings.Contains(got, "Cache reads") {
		t.Errorf("/stats model has a Cache reads row before the cache served any:\n%s", got)
	}
	h.prompt(env, "two")
	got := h.answer(env, "/stats")
	for _, want := range []string{
		"- Cached: 1000 of the input tokens (25.0%), served from the model's context cache\n",
		"- Context: 3000 of the model's 1048576 tokens (0.3%) at the last request\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/stats lacks %q:\n%s", want, got)
		}
	}
	if got := h.answer(env, "/stats model"); !strings.Contains(got, "| ↳ Cache reads | 1000 (25.0%) |") {
		t.Errorf("/stats model lacks the cache reads:\n%s", got)
	}
}
