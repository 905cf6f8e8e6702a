package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// Every kind of event a turn emits (dialog.Kinds) is shown by stream-json
// as the event it is documented as (docs/configuration.md, Output formats
// of run), or left out on purpose: a kind added to dialog fails here
// until the headless run says what it does with it.
func TestStreamJSONShowsEveryKind(t *testing.T) {
	// The stream event each kind is, as type and severity; "" for a kind
	// no format shows.
	shownAs := map[string]string{
		"TextEvent":       "message",
		"ThoughtEvent":    "thought",
		"ToolCallEvent":   "tool_use",
		"ToolResultEvent": "tool_result",
		"UsageEvent":      "",
		"ErrorEvent":      "error error",
		"RetryEvent":      "error warning",
		"CompressedEvent": "error warning",
		"NoticeEvent":     "error warning",
		"ModeEvent":       "",
		"ModelEvent":      "",
		"TopicEvent":      "",
		"PlanEvent":       "",
		"CommandsEvent":   "",
	}
	for _, e := range dialog.Kinds() {
		kind := reflect.TypeOf(e).Name()
		want, ok := shownAs[kind]
		if !ok {
			t.Errorf("the headless run does not say how it shows a %s", kind)
			continue
		}
		if _, ok := e.(dialog.ErrorEvent); ok {
			e = dialog.ErrorEvent{Err: errors.New("it broke")} // no error is no event
		}
		var stdout, stderr bytes.Buffer
		r, err := newReport("stream-json", &stdout, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		r.begin("s1", "gemini-test", "hi")
		stdout.Reset()
		r.Show(context.Background(), dialog.Subagent{}, e)
		var got []string
		for line := range strings.SplitSeq(strings.TrimSpace(stdout.String()), "\n") {
			if line == "" {
				continue
			}
			var ev struct{ Type, Severity string }
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.TrimSpace(ev.Type+" "+ev.Severity))
		}
		switch {
		case want == "" && len(got) != 0:
			t.Errorf("a %s is shown as %q, want nothing", kind, got)
		case want != "" && (len(got) != 1 || got[0] != want):
			t.Errorf("a %s is shown as %q, want %q", kind, got, want)
		}
	}
}
