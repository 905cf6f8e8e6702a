package agent

import (
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
)

// Before a prompt a compression summarised, other than the first, the
// summary cannot stay (it tells of the prompts rewound): the history of
// the prompts kept is rebuilt from the transcript, and the note says
// what the model no longer sees. After the summary the cut is exact.
func TestHistoryBeforeASummarisedPrompt(t *testing.T) {
	user := func(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleUser) }
	model := func(text string) *genai.Content { return genai.NewContentFromText(text, genai.RoleModel) }
	history := []*genai.Content{
		user("<state_snapshot>prompts 1 to 3</state_snapshot>"), model(compressionAcknowledgement),
		user("fourth"), model("4"), user("fifth"), model("5"),
	}
	exchanges := []sessionstore.Exchange{{Prompt: "first", Answer: "1"}, {Prompt: "second"}, {Prompt: "third", Answer: "3"}, {Prompt: "fourth", Answer: "4"}, {Prompt: "fifth", Answer: "5"}}
	kept, note := historyBefore(history, exchanges, 2)
	var got []string
	for _, c := range kept {
		got = append(got, c.Role+": "+c.Parts[0].Text)
	}
	if want := "user: first|model: 1|user: second|model: (no text answer)"; strings.Join(got, "|") != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	if !strings.Contains(note, "prompts 1 to 2 was rebuilt from the transcript") {
		t.Errorf("note = %q", note)
	}
	if kept, note := historyBefore(history, exchanges, 4); len(kept) != 4 || kept[0] != history[0] || note != "" {
		t.Errorf("before prompt 5: %d contents, note %q", len(kept), note)
	}
	if kept, note := historyBefore(history, exchanges, 0); len(kept) != 0 || note != "" {
		t.Errorf("before prompt 1: %d contents, note %q", len(kept), note)
	}
}
