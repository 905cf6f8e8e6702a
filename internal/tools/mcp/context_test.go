package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A tool's mcp_context, for the hooks, holds what Gemini CLI 0.61's
// extractMcpContext puts there: the server's alias, the tool's own name,
// and command, args, cwd or url as the settings give them (url, else
// httpUrl); never env or headers, and nothing the settings leave out.
func TestMCPContextTellsHooksHowTheServerIsReached(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "whoami"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	web := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(web.Close)
	cwd := t.TempDir()
	m, _ := started(t, map[string]settings.MCPServer{
		"local": {Command: testServer, Args: []string{"-extra", "more"}, Cwd: cwd, Env: map[string]string{"TOKEN": "secret"}, IncludeTools: []string{"echo"}},
		"bare":  {Command: testServer, IncludeTools: []string{"echo"}},
		"web":   {HTTPURL: web.URL, Headers: map[string]string{"Authorization": "Bearer secret"}},
	})
	for name, want := range map[string]map[string]any{
		"mcp_local_echo": {"server_name": "local", "tool_name": "echo", "command": testServer, "args": []string{"-extra", "more"}, "cwd": cwd},
		"mcp_bare_echo":  {"server_name": "bare", "tool_name": "echo", "command": testServer},
		"mcp_web_whoami": {"server_name": "web", "tool_name": "whoami", "url": web.URL},
	} {
		got := find(t, m, name).(*tool).MCPContext()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s's mcp_context = %v, want %v", name, got, want)
		}
	}
}
