package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// list_mcp_resources is offered while a running server has resources,
// as Gemini CLI 0.61 offers it, declared in 0.61's words, read-only and
// of kind search; it lists every server's resources, or one server's,
// as 0.61 does.
func TestListMCPResources(t *testing.T) {
	if m, _ := started(t, map[string]settings.MCPServer{"beta": {Command: testServer}}); slices.Contains(names(m), tools.ListResourcesName) {
		t.Errorf("offered with no resources: %v", names(m))
	}
	m, _ := started(t, map[string]settings.MCPServer{
		"alpha": {Command: testServer, Args: []string{"-resources"}},
		"beta":  {Command: testServer},
	})
	tool := find(t, m, tools.ListResourcesName)
	decl, _ := json.Marshal(tool.Declaration())
	want := `{"description":"Lists all available resources exposed by connected MCP servers.","name":"list_mcp_resources",` +
		`"parametersJsonSchema":{"properties":{"serverName":{"description":"Optional filter to list resources from a specific server.","type":"string"}},"type":"object"}}`
	if string(decl) != want {
		t.Errorf("declared\n%s\nwant\n%s", decl, want)
	}
	if a := tools.AnnotationsOf(tool); a != (tools.Annotations{Kind: dialog.KindSearch, ReadOnly: true}) {
		t.Errorf("annotations %+v", a)
	}
	for _, tc := range []struct {
		args          map[string]any
		output, shown string
	}{
		{nil, "Available MCP Resources:\n- alpha:db://users | users\n- alpha:file:///notes.txt | notes | The team's notes.\n", "Listed 2 resources."},
		{map[string]any{"serverName": "alpha"}, "Available MCP Resources:\n- alpha:db://users | users\n- alpha:file:///notes.txt | notes | The team's notes.\n", "Listed 2 resources."},
		{map[string]any{"serverName": "beta"}, "No resources found for server: beta", "No resources found for server: beta"},
	} {
		if res := run(t, tool, tc.args); res.Output != tc.output || res.Display != tc.shown || res.Error != "" {
			t.Errorf("%v: %+v, want %q shown as %q", tc.args, res, tc.output, tc.shown)
		}
	}
	if _, err := tool.Build(map[string]any{"serverName": 7.0}); err == nil || err.Error() != "params/serverName must be string" {
		t.Errorf("a number as serverName: %v", err)
	}
}
