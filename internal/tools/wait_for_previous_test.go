package tools

import (
	"reflect"
	"testing"
)

// wait_for_previous is added as Gemini CLI 0.61's addWaitForPreviousParameter
// adds it: to an object schema only, the schema given left as it was.
func TestAddWaitForPrevious(t *testing.T) {
	wait := map[string]any{"type": "boolean", "description": "Set to true to wait for all previously requested tools in this turn to complete before starting. Set to false (or omit) to run in parallel. Use true when this tool depends on the output of previous tools."}
	given := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "required": []string{"a"}}
	got := AddWaitForPrevious(given)
	want := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}, WaitForPrevious: wait}, "required": []string{"a"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, changed := given["properties"].(map[string]any)[WaitForPrevious]; changed {
		t.Error("the schema given was changed")
	}
	if got := AddWaitForPrevious(map[string]any{"type": "object"}); !reflect.DeepEqual(got, map[string]any{"type": "object", "properties": map[string]any{WaitForPrevious: wait}}) {
		t.Errorf("without properties: %v", got)
	}
	for _, same := range []any{
		nil,
		map[string]any{"type": "string"},
		map[string]any{"properties": map[string]any{}},
		map[string]any{"type": "object", "properties": []any{}},
	} {
		if got := AddWaitForPrevious(same); !reflect.DeepEqual(got, same) {
			t.Errorf("AddWaitForPrevious(%v) = %v, want it unchanged", same, got)
		}
	}
}
