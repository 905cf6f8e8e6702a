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
	if m, _ := started(t, map[string]settings.MCPServer{"beta": {Command: testServer}}); slices.Contains(names(m), tools.ReadResourceName) {
		t.Errorf("offered with no resources: %v", names(m))
	}
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer, Args: []string{"-resources"}}})
	tool := find(t, m, tools.ReadResourceName)
	decl, _ := json.Marshal(tool.Declaration())
	want := `{"description":"Reads the content of a specified Model Context Protocol (MCP) resource.","name":"read_mcp_resource",` +
		`"parametersJsonSchema":{"properties":{"uri":{"description":"The URI of the MCP resource to read.","type":"string"}},"required":["uri"],"type":"object"}}`
	if string(decl) != want {
		t.Errorf("declared\n%s\nwant\n%s", decl, want)
	}
	if a := tools.AnnotationsOf(tool); a != (tools.Annotations{Kind: dialog.KindRead, ReadOnly: true}) {
		t.Errorf("annotations %+v", a)
	}
	reads(t, tool, []resourceRead{
		{"alpha:file:///notes.txt", `Read MCP resource "notes" from server "alpha"`,
			tools.Result{Output: "contents of file:///notes.txt\n", Display: `Successfully read resource "notes" from server "alpha"`}},
		{"alpha:db://users", `Read MCP resource "users" from server "alpha"`,
			tools.Result{Output: "[Binary Data (application/x-sqlite3)]\n", Display: `Successfully read resource "users" from server "alpha"`}},
		{"beta:file:///notes.txt", "Read MCP resource: beta:file:///notes.txt",
			tools.Result{Error: "Resource not found for URI: beta:file:///notes.txt", Display: "Error: Resource not found for URI: beta:file:///notes.txt"}},
	})
	if _, err := tool.Build(map[string]any{}); err == nil || err.Error() != "params must have required property 'uri'" {
		t.Errorf("no uri: %v", err)
	}
}

// A plain URI, with no server named, is looked up across the running
// servers' resource lists, as Gemini CLI 0.61's
// McpClientManager.findResourceByUri does: found on the one server that
// lists it, titled and read as if named SERVER:URI. One that two servers
// list is not read: the model is told which servers list it and to name
// one. One no server lists gets 0.61's "not found".
func TestReadMCPResourcePlainURI(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{
		"alpha": {Command: testServer, Args: []string{"-resources"}},
		"beta":  {Command: testServer, Args: []string{"-resources"}},
		"gamma": {Command: testServer, Args: []string{"-resource", "file:///gamma.txt"}},
	})
	tool := find(t, m, tools.ReadResourceName)
	ambiguous := "Resource URI file:///notes.txt is listed by more than one MCP server: alpha, beta. " +
		"Name the server as SERVER:URI, e.g. alpha:file:///notes.txt"
	reads(t, tool, []resourceRead{
		{"file:///gamma.txt", `Read MCP resource "extra" from server "gamma"`,
			tools.Result{Output: "contents of file:///gamma.txt\n", Display: `Successfully read resource "extra" from server "gamma"`}},
		{"file:///notes.txt", "Read MCP resource: file:///notes.txt",
			tools.Result{Error: ambiguous, Display: "Error: " + ambiguous}},
		{"beta:file:///notes.txt", `Read MCP resource "notes" from server "beta"`,
			tools.Result{Output: "contents of file:///notes.txt\n", Display: `Successfully read resource "notes" from server "beta"`}},
		{"file:///missing.txt", "Read MCP resource: file:///missing.txt",
			tools.Result{Error: "Resource not found for URI: file:///missing.txt", Display: "Error: Resource not found for URI: file:///missing.txt"}},
	})
}

// resourceRead is a read_mcp_resource call's uri, the title it shows and
// its result.
type resourceRead struct {
	uri, title string
	want       tools.Result
}

// reads calls tool with each uri and checks its title and result.
func reads(t *testing.T, tool tools.Tool, cases []resourceRead) {
	t.Helper()
	for _, tc := range cases {
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
}
