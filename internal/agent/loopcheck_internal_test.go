package agent

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/models"
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

// scriptedChecker answers the loop check with confidences in turn and
// notes the models it was asked on.
type scriptedChecker struct {
	confidences []float64
	asked       []string
}

func (c *scriptedChecker) utilityJSON(_ string, use models.Utility, _ string, _ map[string]any, _ []*genai.Content, _ int) (string, error) {
	c.asked = append(c.asked, use.Model)
	conf := c.confidences[0]
	c.confidences = c.confidences[1:]
	return fmt.Sprintf(`{"unproductive_state_confidence": %v, "unproductive_state_analysis": "going round"}`, conf), nil
}

// The loop detector's model check needs no turn: it is fed the requests'
// inputs and the history, and asks through loopChecker. It is due on the
// 30th request, then after the interval the last confidence set; a loop
// needs both models sure.
func TestLoopDetectorModelCheckOnItsOwn(t *testing.T) {
	var d loopDetector
	input := genai.NewContentFromText("do it", genai.RoleUser)
	due := 0
	for i := 1; i <= llmCheckAfterTurns; i++ {
		if d.modelCheckDue(input) {
			due = i
		}
	}
	if due != llmCheckAfterTurns {
		t.Fatalf("first due at request %d, want %d", due, llmCheckAfterTurns)
	}
	check := &scriptedChecker{confidences: []float64{0.5}}
	if loop := d.checkWithModel(check, input, []*genai.Content{input}); loop != nil {
		t.Fatalf("a loop at confidence 0.5: %v", loop)
	}
	if d.interval != 10 {
		t.Errorf("interval %d after confidence 0.5, want 10", d.interval)
	}
	for i := 1; i < 10; i++ {
		if d.modelCheckDue(input) {
			t.Fatalf("due %d requests after the check, before the interval of 10", i)
		}
	}
	if !d.modelCheckDue(input) {
		t.Fatal("not due after the interval")
	}
	check = &scriptedChecker{confidences: []float64{0.95, 0.92}}
	loop := d.checkWithModel(check, input, []*genai.Content{input})
	if loop == nil || loop.Analysis != "going round" {
		t.Fatalf("loop %v, want the double check's analysis", loop)
	}
	if len(check.asked) != 2 || check.asked[0] == check.asked[1] {
		t.Errorf("asked %v, want the loop-detection model then the double check", check.asked)
	}
	if off := (loopDetector{off: true}); off.modelCheckDue(input) {
		t.Error("due with loop detection off")
	}
}

// The detector keeps a prompt's parts, not their text joined: a prompt
// may be 16 MiB, and the check that sends it is rare.
func TestLoopDetectorDoesNotCopyThePrompt(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	input := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: big}, {Text: big}}}
	var d loopDetector
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d.modelCheckDue(input)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Errorf("the first request's check allocated %d bytes for a prompt of %d", grew, 2*len(big))
	}
	got := loopCheckContents(partsText(&genai.Content{Parts: d.userPrompt}), nil)
	if want := "<original_user_request>\n" + big + big + "\n</original_user_request>"; got[0].Parts[0].Text != want {
		t.Error("the check's contents lost the prompt's text")
	}
}
