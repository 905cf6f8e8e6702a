package jsjson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// Decode reads a hook's output, which a hook controls, in linear time.
func TestDecodeIsLinear(t *testing.T) {
	// within is head, unit whole as often as size allows, then tail.
	within := func(head, unit, tail string) func(int) string {
		return func(size int) string { return head + strings.Repeat(unit, size/len(unit)) + tail }
	}
	for name, input := range map[string]func(size int) string{
		"one name again and again": within("{", `"decision":"deny",`, `"z":1}`),
		"a name in other cases":    within("{", `"Decision":"deny","DECISION":1,`, `"z":1}`),
		"escaped names":            within("{", `"\u0064ecision":"x",`, `"z":1}`),
		"servers given twice":      within(`{"mcpServers":{`, `"s":{"args":["a"]},`, `"t":{}}}`),
		"nested arrays":            within(`{"hookSpecificOutput":{"tool_input":{"a":`+strings.Repeat("[", 9000)+strings.Repeat("]", 9000)+`,"b":[`, `[1,{"x":2}],`, `0]}}}`),
		"not JSON":                 lineartest.Repeat(`{"a":[`),
	} {
		if text := input(1 << 10); name != "not JSON" && !json.Valid([]byte(text)) {
			t.Fatalf("%s: not JSON, so not a case of Decode's work", name)
		}
		lineartest.Linear(t, name, input, func(text string) {
			var p probe
			_ = jsjson.Decode([]byte(text), &p)
		})
	}
}
