package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// read_mcp_resource is offered with list_mcp_resources, declared in
// Gemini CLI 0.61's words, read-only and of kind read; it reads a
// resource named as list_mcp_resources lists it (SERVER:URI), text as
// text and binary data as a line saying so, and answers a resource no
// running server lists with 0.61's error.
func TestReadMCPResource(t *testing.T) {
	if m, _ := started(t, map[string]settings.MCPServer{"beta": {Command: testServer}}); slices.Contains(names(m), ReadResourceName) {
		t.Errorf("offered with no resources: %v", names(m))
	}
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer, Args: []string{"-resources"}}})
	tool := find(t, m, ReadResourceName)
	decl, _ := json.Marshal(tool.Declaration())
	want := `{"description":"Reads the content of a specified Model Context Protocol (MCP) resource.","name":"read_mcp_resource",` +
		`"parametersJsonSchema":{"properties":{"uri":{"description":"The URI of the MCP resource to read.","type":"string"}},"required":["uri"],"type":"object"}}`
	if string(decl) != want {
		t.Errorf("declared\n%s\nwant\n%s", decl, want)
	}
	if a := tools.AnnotationsOf(tool); a != (tools.Annotations{Kind: dialog.KindRead, ReadOnly: true}) {
		t.Errorf("annotations %+v", a)
	}
	for _, tc := range []struct {
		uri, title string
		want       tools.Result
	}{
		{"alpha:file:///notes.txt", `Read MCP resource "notes" from server "alpha"`,
			tools.Result{Output: "contents of file:///notes.txt\n", Display: `Successfully read resource "notes" from server "alpha"`}},
		{"alpha:db://users", `Read MCP resource "users" from server "alpha"`,
			tools.Result{Output: "[Binary Data (application/x-sqlite3)]\n", Display: `Successfully read resource "users" from server "alpha"`}},
		{"file:///notes.txt", "Read MCP resource: file:///notes.txt",
			tools.Result{Error: "Resource not found for URI: file:///notes.txt", Display: "Error: Resource not found for URI: file:///notes.txt"}},
	} {
		call, err := tool.Build(map[string]any{"uri": tc.uri})
		if err != nil {
			t.Fatal(err)
		}
		if call.Title() != tc.title {
			t.Errorf("%s: title %q, want %q", tc.uri, call.Title(), tc.title)
		}
		if res := run(t, tool, map[string]any{"uri": tc.uri}); res.Output != tc.want.Output || res.Display != tc.want.Display || res.Error != tc.want.Error {
			t.Errorf("%s: %+v, want %+v", tc.uri, res, tc.want)
		}
	}
	if _, err := tool.Build(map[string]any{}); err == nil || err.Error() != "params must have required property 'uri'" {
		t.Errorf("no uri: %v", err)
	}
}
