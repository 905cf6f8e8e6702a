package agent

import (
	"fmt"
	"testing"

	"google.golang.org/genai"
)

func text(role genai.Role, s string) *genai.Content { return genai.NewContentFromText(s, role) }

// The cases of Gemini CLI's findCompressSplitPoint tests.
func TestCompressSplitPointAsTheReference(t *testing.T) {
	five := []*genai.Content{
		text(genai.RoleUser, "This is the first message."),
		text(genai.RoleModel, "This is the second message."),
		text(genai.RoleUser, "This is the third message."),
		text(genai.RoleModel, "This is the fourth message."),
		text(genai.RoleUser, "This is the fifth message."),
	}
	call := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "foo", Args: map[string]any{}}}}}
	for _, tc := range []struct {
		name     string
		contents []*genai.Content
		fraction float64
		want     int
	}{
		{"empty", nil, 0.5, 0},
		{"a fraction in the middle", five, 0.5, 4},
		{"a fraction of the last index", five, 0.9, 4},
		{"after the last index", five[:4], 0.8, 4},
		{"the last answer calls a function", append(five[:3:3], call), 0.99, 2},
		{"one item", five[:1], 0.5, 0},
		{"odd parts", []*genai.Content{
			text(genai.RoleUser, "Message 1"),
			{Role: genai.RoleModel, Parts: []*genai.Part{{FileData: &genai.FileData{FileURI: "derp", MIMEType: "text/plain"}}}},
			text(genai.RoleUser, "Message 2"),
		}, 0.5, 2},
	} {
		if got := compressSplitPoint(tc.contents, tc.fraction); got != tc.want {
			t.Errorf("%s: split = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Wherever the split falls, a function call and its response stay on the
// same side.
func TestCompressSplitPointKeepsCallsWithResponses(t *testing.T) {
	var history []*genai.Content
	for i := range 6 {
		history = append(history, text(genai.RoleUser, fmt.Sprintf("prompt %d", i)))
		for j := range i % 3 {
			id := fmt.Sprintf("c%d-%d", i, j)
			history = append(history,
				&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: "read_file", Args: map[string]any{"path": id}}}}},
				&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "read_file", Response: map[string]any{"output": fmt.Sprintf("%0*d", 40*(i+j+1), 0)}}}}},
			)
		}
		history = append(history, text(genai.RoleModel, fmt.Sprintf("answer %d", i)))
	}
	seen := map[int]bool{}
	for f := 0.05; f < 1; f += 0.05 {
		split := compressSplitPoint(history, f)
		seen[split] = true
		if split == len(history) || split == 0 {
			continue
		}
		if c := history[split]; c.Role != genai.RoleUser || hasFunctionResponse(c) {
			t.Errorf("fraction %.2f splits before %s", f, toJSONForTest(c))
		}
		if hasFunctionCall(history[split-1]) {
			t.Errorf("fraction %.2f splits after a call", f)
		}
	}
	if len(seen) < 4 {
		t.Errorf("splits %v: the fractions should move the split", seen)
	}
}

func toJSONForTest(c *genai.Content) string { return fmt.Sprintf("%s %+v", c.Role, c.Parts) }

func TestReplaceMovesTheEpoch(t *testing.T) {
	var c chat
	c.record(text(genai.RoleUser, "hi"))
	if c.epoch != 0 {
		t.Fatalf("epoch %d after an append", c.epoch)
	}
	c.replace([]*genai.Content{text(genai.RoleUser, "summary")})
	if c.epoch != 1 || len(c.history) != 1 || c.history[0].Parts[0].Text != "summary" {
		t.Errorf("after replace: epoch %d, history %v", c.epoch, c.history)
	}
}

func TestTokenLimit(t *testing.T) {
	if got := tokenLimit("gemini-2.5-pro"); got != 1_048_576 {
		t.Errorf("gemini-2.5-pro: %d", got)
	}
	if got := tokenLimit("gemma-4-31b-it"); got != 256_000 {
		t.Errorf("gemma-4-31b-it: %d", got)
	}
	a := New(Config{Model: "gemini-2.5-flash", TokenLimit: 32_000})
	if got := a.tokenLimit("gemini-2.5-flash"); got != 32_000 {
		t.Errorf("with Config.TokenLimit: %d", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	got := estimateTokens([]*genai.Content{
		text(genai.RoleUser, "abcdefgh"), // 2
		text(genai.RoleModel, "日本"),      // 3
		{Role: genai.RoleUser, Parts: []*genai.Part{{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("x")}}}}, // 3000
	})
	if got != 3005 {
		t.Errorf("estimate = %d, want 3005", got)
	}
}
