package e2e

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// A server that offers only resources (no tools, no prompts: it answers
// their requests "Method not found") is asked only for its resources, as
// Gemini CLI 0.61 asks, so it starts, and the model lists and reads them
// with list_mcp_resources and read_mcp_resource.
func TestResourcesOnlyServerHeadless(t *testing.T) {
	h := newHeadless(t, map[string]string{},
		geminitest.CallTurn(
			geminitest.Call("list_mcp_resources", map[string]any{}),
			geminitest.Call("read_mcp_resource", map[string]any{"uri": "docs:file:///notes.txt"}),
		),
		geminitest.TextTurn("Read."))
	writeFiles(t, h.root, map[string]string{".gemini/settings.json": settingsJSON(t, map[string]any{
		"docs": map[string]any{"command": mcpServerBinary(t), "args": []string{"-only-resources"}},
	})})
	h.runIn(h.root, trusted(t, h), "run", "-p", "what do the docs say?").wantExit(t, 0)
	got := h.responses(1)
	if len(got) != 2 {
		t.Fatalf("function responses %+v, want two", got)
	}
	const listing = "Available MCP Resources:\n- docs:db://users | users\n- docs:file:///notes.txt | notes | The team's notes.\n"
	if got[0].Name != "list_mcp_resources" || responseOutput(got[0]) != listing {
		t.Errorf("list_mcp_resources answered %+v, want %q", got[0], listing)
	}
	if got[1].Name != "read_mcp_resource" || responseOutput(got[1]) != "contents of file:///notes.txt\n" {
		t.Errorf("read_mcp_resource answered %+v, want the notes", got[1])
	}
}
