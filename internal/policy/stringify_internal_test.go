package policy

import "testing"

// Arguments are written as Gemini CLI's stableStringify writes them.
func TestStableStringify(t *testing.T) {
	got := stableStringify(map[string]any{
		"z":       []any{1.0, "a<b>&", nil, true},
		"command": "echo \"hi\"\n\x01",
		"nested":  map[string]any{"b": 1.5, "a": 1e21, "c": 0.0000001},
	})
	want := "{\x00\"command\":\"echo \\\"hi\\\"\\n\\u0001\"\x00,\x00\"nested\":{\"a\":1e+21,\"b\":1.5,\"c\":1e-7}\x00,\x00\"z\":[1,\"a<b>&\",null,true]\x00}"
	if got != want {
		t.Errorf("stableStringify:\n got %q\nwant %q", got, want)
	}
}
