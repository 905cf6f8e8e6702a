package agent

import (
	"testing"

	"google.golang.org/genai"
)

// Without a prompt text, contents that would start with calls are
// introduced as 0.61 does: "Recent conversation history:".
func TestLoopCheckContentsWithoutPrompt(t *testing.T) {
	call := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "read_file"}}}}
	resp := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "read_file"}}}}
	got := loopCheckContents("", []*genai.Content{resp, call, resp, call})
	if len(got) != 4 || got[0].Parts[0].Text != "Recent conversation history:" || got[1] != call || got[2] != resp || got[3].Parts[0].Text != loopCheckTask {
		t.Errorf("contents = %+v", got)
	}
	if got := loopCheckContents("do it", []*genai.Content{call}); len(got) != 2 || got[0].Parts[0].Text != "<original_user_request>\ndo it\n</original_user_request>" {
		t.Errorf("contents with a prompt = %+v", got)
	}
}
