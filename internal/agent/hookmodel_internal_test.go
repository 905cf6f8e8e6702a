package agent

import (
	"slices"
	"testing"

	"google.golang.org/genai"
)

// TestReplaceResponseKeepsCalls: an AfterModel hook's text replaces the
// chunk's text in its place; the chunk's call, the signature on its text
// and its finish reason are kept.
func TestReplaceResponseKeepsCalls(t *testing.T) {
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "read_file"}}
	resp := &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
		Content:      &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "secret", ThoughtSignature: []byte("sig")}, {Text: " more"}, call}},
		FinishReason: genai.FinishReasonStop,
	}}}
	got, ok, err := replaceResponse(resp, map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"parts": []any{"[redacted]"}}}}})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	parts := got.Candidates[0].Content.Parts
	if len(parts) != 2 || parts[0].Text != "[redacted]" || string(parts[0].ThoughtSignature) != "sig" || parts[1] != call ||
		got.Candidates[0].FinishReason != genai.FinishReasonStop {
		t.Errorf("replaced = %+v", got.Candidates[0])
	}
	if resp.Candidates[0].Content.Parts[0].Text != "secret" {
		t.Error("the original chunk was changed")
	}
	if _, _, err := replaceResponse(resp, map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"parts": []any{1}}}}}); err == nil {
		t.Error("a part that is not text was taken")
	}
}

// TestMergeMessagesKeepsWhatHooksDoNotSee: a hook's messages replace the
// text of the contents that had text, in order; contents without text
// (calls, responses) stay, as do the other parts of those with text.
func TestMergeMessagesKeepsWhatHooksDoNotSee(t *testing.T) {
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "read_file"}}
	answer := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "read_file"}}}}
	contents := []*genai.Content{
		genai.NewContentFromText("first", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "let me look"}, call}},
		answer,
		genai.NewContentFromText("done", genai.RoleModel),
	}
	req := hookRequest("m", contents, nil)
	if msgs := req["messages"].([]map[string]any); len(msgs) != 3 || msgs[1]["content"] != "let me look" || msgs[2]["role"] != "model" {
		t.Fatalf("messages = %v", msgs)
	}
	merged := mergeMessages(contents, []hookMessage{{"user", "FIRST"}, {"model", "LOOKING"}})
	if len(merged) != 4 || contentText(merged[0]) != "FIRST" || contentText(merged[1]) != "LOOKING" || !slices.Contains(merged[1].Parts, call) ||
		merged[2] != answer || contentText(merged[3]) != "done" {
		t.Errorf("merged = %v", merged)
	}
	if contentText(contents[0]) != "first" {
		t.Error("the history was changed")
	}
	if _, err := hookMessages([]any{map[string]any{"role": "system", "content": "x"}}); err == nil {
		t.Error("a system message was taken as a turn")
	}
}
