package agent

import (
	"strings"
	"testing"

	"google.golang.org/genai"
)

// Before a prompt a compression summarised, other than the first, the
// history keeps the summary (it cannot be cut apart) and drops the rest,
// and the note says which prompts the summary still holds.
func TestHistoryBeforeASummarisedPrompt(t *testing.T) {
	user := func(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleUser) }
	model := func(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleModel) }
	history := []*genai.Content{
		user("<state_snapshot>prompts 1 to 3</state_snapshot>"), model(compressionAcknowledgement),
		user("fourth"), model("4"), user("fifth"), model("5"),
	}
	kept, note := historyBefore(history, 5, 1)
	if len(kept) != 2 || kept[0] != history[0] {
		t.Errorf("kept %d contents, want the summary's 2", len(kept))
	}
	if !strings.Contains(note, "Prompts 2 to 3 were compressed into a summary") {
		t.Errorf("note = %q", note)
	}
	// After the summary, the cut is exact and nothing is said.
	if kept, note := historyBefore(history, 5, 4); len(kept) != 4 || note != "" {
		t.Errorf("before prompt 5: %d contents, note %q", len(kept), note)
	}
	if kept, note := historyBefore(history, 5, 0); len(kept) != 0 || note != "" {
		t.Errorf("before prompt 1: %d contents, note %q", len(kept), note)
	}
}
