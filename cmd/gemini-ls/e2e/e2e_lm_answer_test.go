package e2e

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// gemini/answer: one answer to a conversation an editor keeps itself
// (VS Code's language model API), streamed as partial results; no
// session, no tools, nothing of gemini-ls's own instructions
// (docs/protocol.md §5i).

type lmAnswer struct {
	Text  string `json:"text"`
	Model string `json:"model"`
}

func (h *harness) lmAnswer(params map[string]any) (lmAnswer, error) {
	h.t.Helper()
	var res lmAnswer
	err := h.client.Call(h.ctx, "gemini/answer", params, &res)
	return res, err
}

func TestLMAnswerStreamsTheConversationsAnswer(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, geminitest.TextTurn("Hello, ", "world."))
	res, err := h.lmAnswer(map[string]any{
		"model":  "gemini-3-flash-preview",
		"system": "Answer briefly.",
		"messages": []map[string]any{
			{"role": "user", "text": "hi"},
			{"role": "assistant", "text": "Hi! What can I do?"},
			{"role": "user", "text": "greet the world"},
		},
		"partialResultToken": "lm-7",
	})
	if err != nil {
		t.Fatalf("gemini/answer: %v", err)
	}
	if res.Text != "Hello, world." || res.Model != "gemini-3-flash-preview" {
		t.Errorf("result = %+v, want the whole text from gemini-3-flash-preview", res)
	}
	// Each piece came as it arrived, under the client's token, before
	// the result.
	var pieces []string
	for _, m := range h.client.Messages("$/progress") {
		var p struct {
			Token string
			Value struct{ Text string }
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.Token != "lm-7" {
			t.Errorf("$/progress %s: not the answer's", m.Params)
			continue
		}
		pieces = append(pieces, p.Value.Text)
	}
	if strings.Join(pieces, "|") != "Hello, |world." {
		t.Errorf("partial results = %q, want the two pieces", pieces)
	}
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "gemini-3-flash-preview" || len(r.Tools) != 0 {
		t.Errorf("the request went to %s with %d tools, want gemini-3-flash-preview and none", r.Model, len(r.Tools))
	}
	// The client's system instruction alone: none of gemini-ls's.
	if r.SystemInstruction == nil || strings.Join(partTexts(r.SystemInstruction.Parts), "") != "Answer briefly." {
		t.Errorf("system instruction = %v, want the client's alone", r.SystemInstruction)
	}
	var turns []string
	for _, c := range r.Contents {
		turns = append(turns, c.Role+": "+strings.Join(partTexts(c.Parts), ""))
	}
	if want := "user: hi|model: Hi! What can I do?|user: greet the world"; strings.Join(turns, "|") != want {
		t.Errorf("contents = %q, want %q", turns, want)
	}
	if u := h.client.Messages("gemini/update"); len(u) != 0 {
		t.Errorf("the answer sent %d gemini/update: it is no session's", len(u))
	}
}

func TestLMAnswerRefusesWhatItCannotAnswer(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()})
	for _, c := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"no model", map[string]any{"messages": []map[string]any{{"role": "user", "text": "hi"}}}, `missing required field "model"`},
		{"no messages", map[string]any{"model": "gemini-2.5-pro"}, `missing required field "messages"`},
		{"a system role", map[string]any{"model": "gemini-2.5-pro", "messages": []map[string]any{{"role": "system", "text": "hi"}}}, `messages[0].role is "system", not "user" or "assistant"`},
		{"the assistant last", map[string]any{"model": "gemini-2.5-pro", "messages": []map[string]any{{"role": "user", "text": "hi"}, {"role": "assistant", "text": "hello"}}}, "the last message is the assistant's: there is nothing to answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.lmAnswer(c.params)
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, c.want) {
				t.Errorf("gemini/answer = %v, want InvalidParams saying %q", err, c.want)
			}
		})
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times, want never", n)
	}
}

// A model that fails says why, with the kind an editor acts on; one
// that stops before any text (safety) is a failure too, not an empty
// answer.
func TestLMAnswerFailuresSayWhy(t *testing.T) {
	t.Run("invalid key", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin()}, geminitest.InvalidAPIKey())
		_, err := h.lmAnswer(map[string]any{"model": "gemini-2.5-pro", "messages": []map[string]any{{"role": "user", "text": "hi"}}})
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != -32803 || !strings.HasPrefix(rpcErr.Message, "gemini-2.5-pro could not answer: ") {
			t.Fatalf("gemini/answer = %v, want RequestFailed naming the model", err)
		}
		var data struct{ ErrorKind string }
		if json.Unmarshal(rpcErr.Data, &data); data.ErrorKind != "invalid_api_key" {
			t.Errorf("the error's data %s, want errorKind invalid_api_key", rpcErr.Data)
		}
	})
	t.Run("blocked", func(t *testing.T) {
		h := start(t, setup{profile: lsptest.Plugin()}, geminitest.Turn{FinishReason: genai.FinishReasonSafety})
		_, err := h.lmAnswer(map[string]any{"model": "gemini-2.5-pro", "messages": []map[string]any{{"role": "user", "text": "hi"}}})
		if err == nil || !strings.Contains(err.Error(), "finish reason SAFETY") {
			t.Errorf("gemini/answer = %v, want a failure naming SAFETY", err)
		}
	})
}
