package tools

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// update_topic says what Gemini CLI says: a new topic with its summary and
// intent, then an intent alone within it; the result carries the topic for
// the front ends.
func TestUpdateTopic(t *testing.T) {
	tw := newTestWorkspace(t, nil)
	tool := tw.tool(UpdateTopicName, Options{})
	var state TopicState
	exec := func(args map[string]any) Result {
		t.Helper()
		call := build(t, tool, args)
		if call.Confirmation() != nil {
			t.Error("update_topic asks for approval")
		}
		res, err := call.Execute(t.Context(), CallInfo{Topic: &state})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := exec(map[string]any{"title": "Researching Parser", "summary": "Looking at the tests.", "strategic_intent": "Reproduce the timeout."})
	if want := "Current topic: \"Researching Parser\"\nTopic summary: Looking at the tests.\n\nStrategic Intent: Reproduce the timeout."; res.Output != want {
		t.Errorf("output %q", res.Output)
	}
	if res.Topic == nil || *res.Topic != (dialog.Topic{Title: "Researching Parser", Summary: "Looking at the tests.", Intent: "Reproduce the timeout.", New: true}) {
		t.Errorf("topic %+v", res.Topic)
	}
	res = exec(map[string]any{"title": "Researching Parser", "strategic_intent": "Run the slow test."})
	if res.Output != "Strategic Intent: Run the slow test." || *res.Topic != (dialog.Topic{Title: "Researching Parser", Intent: "Run the slow test."}) {
		t.Errorf("same topic: %q %+v", res.Output, res.Topic)
	}
	if msg := buildError(t, tool, map[string]any{"title": "x"}); msg == "" {
		t.Error("no strategic_intent accepted")
	}
}
