package lsp

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every kind of event a turn emits (dialog.Kinds) reaches the client as
// one gemini/update whose kind is the word docs/protocol.md (6) names it by: a
// kind added to dialog fails here until gemini/update has a word for it.
func TestEveryKindIsAnUpdateOfItsWord(t *testing.T) {
	words := map[string]string{
		"TextEvent":       "text",
		"ThoughtEvent":    "thought",
		"ToolCallEvent":   "toolCall",
		"ToolResultEvent": "toolResult",
		"UsageEvent":      "usage",
		"ErrorEvent":      "error",
		"RetryEvent":      "retry",
		"CompressedEvent": "compressed",
		"NoticeEvent":     "notice",
		"ModeEvent":       "mode",
		"ModelEvent":      "model",
		"TopicEvent":      "topic",
		"PlanEvent":       "plan",
		"CommandsEvent":   "commands",
	}
	for _, e := range dialog.Kinds() {
		kind := reflect.TypeOf(e).Name()
		want, ok := words[kind]
		if !ok {
			t.Errorf("gemini/update has no word for a %s", kind)
			continue
		}
		var sent []update
		updates{"s", func(u update) { sent = append(sent, u) }, nil}.Show(context.Background(), dialog.Subagent{}, e)
		if len(sent) != 1 {
			t.Errorf("a %s was sent as %d updates, want one", kind, len(sent))
			continue
		}
		b, err := json.Marshal(sent[0])
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		if fields["kind"] != want || fields["sessionId"] != "s" {
			t.Errorf("a %s was sent as %s, want kind %q", kind, b, want)
		}
	}
}
