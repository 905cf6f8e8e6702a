package e2e

import (
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// A model that answers nothing, twice, ends the prompt with an error that
// says what it returned, not with an empty end_turn.
func TestPromptEndsWithErrorWhenTheModelIsBlocked(t *testing.T) {
	blocked := geminitest.Turn{FinishReason: genai.FinishReasonSafety}
	h := start(t, setup{profile: lsptest.Plugin()}, blocked, blocked)
	res := h.prompt(map[string]any{"prompt": "hello"})
	// One sentence with the cause and what to do (issue 56).
	want := "The model returned no answer: its answer was blocked for safety (finish reason SAFETY); asked 2 times: Gemini's safety filters stopped it, so rephrase the prompt or ask for something else."
	if res.StopReason != "error" || res.Error != want || res.Text != "" {
		t.Errorf("result = %+v, want stopReason error and %q", res, want)
	}
	if errs := h.updates("error"); len(errs) != 1 || errs[0].Message != want {
		t.Errorf("error updates = %+v", errs)
	}
	if n := len(h.model.Requests()); n != 2 {
		t.Errorf("the model was asked %d times, want 2", n)
	}
}

func TestPromptSaysTheAnswerWasCut(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, geminitest.Turn{
		Chunks:       []geminitest.Chunk{{Text: "The first half"}},
		FinishReason: genai.FinishReasonMaxTokens,
	})
	res := h.prompt(map[string]any{"prompt": "hello"})
	if res.StopReason != "max_tokens" || res.Text != "The first half" || !strings.Contains(res.Error, "cut at its output token limit") {
		t.Errorf("result = %+v, want max_tokens with the text and why", res)
	}
}

func TestRunReportsAnEmptyAnswer(t *testing.T) {
	h := newHeadless(t, nil, geminitest.Turn{NoCandidates: true}, geminitest.Turn{NoCandidates: true})
	r := h.run("run", "-p", "hi", "--output-format", "stream-json")
	r.wantExit(t, 1)
	lines, _ := streamLines(t, r.stdout)
	end := lines[len(lines)-1]
	want := "the model returned no answer: the response had no candidates; asked 2 times"
	if end.Status != "error" || end.Error == nil || end.Error.Message != want {
		t.Errorf("result = %+v, want error %q", end, want)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestRunReportsACutAnswer(t *testing.T) {
	h := newHeadless(t, nil, geminitest.Turn{
		Chunks:       []geminitest.Chunk{{Text: "The first half"}},
		FinishReason: genai.FinishReasonMaxTokens,
	})
	r := h.run("run", "-p", "hi")
	r.wantExit(t, 1)
	if r.stdout != "The first half\n" || !strings.Contains(r.stderr, "cut at its output token limit") {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
}
