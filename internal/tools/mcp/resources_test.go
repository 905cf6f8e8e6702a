package mcp

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools"
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

// A server that offers only resources is asked only for what its
// capabilities declare, as Gemini CLI 0.61's discovery asks: never for
// its tools or prompts. It is ready, with no tools, and the model lists
// and reads its resources.
func TestResourcesOnlyServerIsAskedOnlyForResources(t *testing.T) {
	record := filepath.Join(t.TempDir(), "methods")
	m, logs := started(t, map[string]settings.MCPServer{"docs": {Command: testServer, Args: []string{"-only-resources", "-record", record}}})
	if st := m.Servers(); len(st) != 1 || st[0].State != StateReady || st[0].Tools != 0 {
		t.Fatalf("servers = %+v, want docs ready with no tools", st)
	}
	if got := names(m); !slices.Equal(got, []string{tools.ListResourcesName, tools.ReadResourceName}) {
		t.Errorf("tools = %v, want only the resource tools", got)
	}
	listing := run(t, find(t, m, tools.ListResourcesName), nil)
	if want := "Available MCP Resources:\n- docs:db://users | users\n- docs:file:///notes.txt | notes | The team's notes.\n"; listing.Output != want {
		t.Errorf("list_mcp_resources = %+v, want %q", listing, want)
	}
	reads(t, find(t, m, tools.ReadResourceName), []resourceRead{{"docs:file:///notes.txt", `Read MCP resource "notes" from server "docs"`,
		tools.Result{Output: "contents of file:///notes.txt\n", Display: `Successfully read resource "notes" from server "docs"`}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if prompts, errs := m.Prompts(ctx); len(prompts) != 0 || len(errs) != 0 {
		t.Errorf("prompts = %+v, %v; want none, no error", prompts, errs)
	}
	if w := warnings(logs); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
	methods, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(methods)); slices.ContainsFunc(got, func(m string) bool {
		return strings.HasPrefix(m, "tools/") || strings.HasPrefix(m, "prompts/")
	}) || !slices.Contains(got, "resources/list") || !slices.Contains(got, "resources/read") {
		t.Errorf("the server was asked %q: want resources/list and resources/read, no tools or prompts", got)
	}
}

// A server that declares tools and prompts but answers their listings
// "Method not found" offers none, as in Gemini CLI 0.61 (its
// isMcpMethodNotFoundError): it is not failed for it, and its resources
// are offered.
func TestMethodNotFoundListsNothing(t *testing.T) {
	m, logs := started(t, map[string]settings.MCPServer{"docs": {Command: testServer, Args: []string{"-only-resources", "-declare", "tools,prompts"}}})
	if st := m.Servers(); len(st) != 1 || st[0].State != StateReady || st[0].Tools != 0 {
		t.Fatalf("servers = %+v, want docs ready with no tools", st)
	}
	if got := len(m.Resources()); got != 2 {
		t.Errorf("%d resources, want 2", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if prompts, errs := m.Prompts(ctx); len(prompts) != 0 || len(errs) != 0 {
		t.Errorf("prompts = %+v, %v; want none, no error", prompts, errs)
	}
	if w := warnings(logs); len(w) > 0 {
		t.Errorf("warnings: %v", w)
	}
}
