package mcp

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A server's resources are listed once it connects, with their server;
// a server without resources has none.
func TestServersResourcesAreListed(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{
		"alpha": {Command: testServer, Args: []string{"-resources"}},
		"beta":  {Command: testServer},
	})
	want := []Resource{
		{Server: "alpha", URI: "db://users", Name: "users"},
		{Server: "alpha", URI: "file:///notes.txt", Name: "notes", Description: "The team's notes.", MIMEType: "text/plain"},
	}
	if got := m.Resources(); !reflect.DeepEqual(got, want) {
		t.Errorf("resources = %+v, want %+v", got, want)
	}
	if w := warnings(logs); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
}

// A server whose resources cannot be listed keeps its tools, and the
// user is warned why it has no resources.
func TestBrokenResourceListingKeepsTheTools(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer, Args: []string{"-broken-resources"}}})
	if got := m.Resources(); len(got) != 0 {
		t.Errorf("resources = %+v, want none", got)
	}
	if !slices.Contains(names(m), "mcp_alpha_echo") {
		t.Errorf("tools = %v, want the server's", names(m))
	}
	if w := warnings(logs); len(w) != 1 || !strings.Contains(w[0], "the catalogue is offline") {
		t.Errorf("warnings = %q, want why the resources are missing", w)
	}
}
