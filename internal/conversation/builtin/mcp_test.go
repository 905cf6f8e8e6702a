package builtin_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/mcptest"
)

// /mcp auth lists the servers that want a sign-in; /mcp auth NAME signs in
// (the front end shows the page; the test is the browser) and restarts the
// server, whose tools are then there.
func TestMCPAuth(t *testing.T) {
	srv := mcptest.NewOAuth(t)
	h := newHarness(t)
	h.showAuthURL = func(_, authURL string) {
		go func() {
			if err := mcptest.Browse(authURL); err != nil {
				t.Errorf("browsing: %v", err)
			}
		}()
	}
	h.write("~/.gemini/settings.json", `{"mcpServers": {"secure": {"url": "`+srv.URL+`", "type": "http"}}}`)
	env := h.conversation()
	h.answer(env, "/tools") // waits for the servers
	if got := h.answer(env, "/mcp"); !strings.Contains(got, "- `secure`: unauthenticated: MCP server 'secure' requires authentication using: /mcp auth secure") {
		t.Errorf("/mcp before signing in said %q", got)
	}
	if got := h.answer(env, "/mcp auth"); got != "MCP servers with OAuth authentication:\n  - secure\n\nUse /mcp auth <server-name> to authenticate." {
		t.Errorf("/mcp auth said %q", got)
	}
	if err := h.fails(env, "/mcp auth nobody"); !strings.Contains(err.Error(), "MCP server 'nobody' not found") {
		t.Errorf("/mcp auth nobody: %v", err)
	}
	if got := h.answer(env, "/mcp auth secure"); got != "Successfully authenticated and reloaded tools for 'secure'" {
		t.Fatalf("/mcp auth secure said %q", got)
	}
	if got := h.answer(env, "/mcp"); !strings.Contains(got, "- `secure`: ready, 2 tool(s): `mcp_secure_add`, `mcp_secure_echo`") {
		t.Errorf("/mcp after signing in said %q", got)
	}
}
