package e2e

import (
	"encoding/json"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// toolResult always carries display, even when there is nothing to show
// (read_file of a whole file).
func TestToolResultAlwaysHasDisplay(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin(), files: map[string]string{"a.go": aGo}},
		call("read_file", map[string]any{"path": "a.go"}),
		geminitest.TextTurn("done"),
	)
	h.prompt(map[string]any{"prompt": "read a.go"})
	h.wantOutput(1, aGo)
	var results []map[string]any
	for _, m := range h.client.Messages("gemini/update") {
		var u map[string]any
		if err := json.Unmarshal(m.Params, &u); err != nil {
			t.Fatal(err)
		}
		if u["kind"] == "toolResult" {
			results = append(results, u)
		}
	}
	if len(results) != 1 {
		t.Fatalf("toolResult updates = %v, want one", results)
	}
	for _, field := range []string{"sessionId", "callId", "name", "status", "display"} {
		if _, ok := results[0][field]; !ok {
			t.Errorf("toolResult %v has no %s", results[0], field)
		}
	}
	if results[0]["display"] != "" || results[0]["status"] != "ok" || results[0]["name"] != "read_file" {
		t.Errorf("toolResult = %v, want status ok and an empty display", results[0])
	}
}
