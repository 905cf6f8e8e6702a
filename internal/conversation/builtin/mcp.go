package builtin

import (
	"context"
	"fmt"
	"strings"
)

// authMCP is /mcp auth, as Gemini CLI's: without a name it lists the
// servers that sign in with OAuth; with one, it signs in to that server
// (the front end shows the sign-in page) and restarts it with its token.
// It returns when the sign-in is done, has failed, or timed out.
func authMCP(ctx context.Context, env Env, name string) (Reply, error) {
	set := env.Built.Tools
	if name == "" {
		servers := set.MCPOAuthServers()
		if len(servers) == 0 {
			return Reply{Text: "No MCP servers configured with OAuth authentication."}, nil
		}
		return Reply{Text: fmt.Sprintf("MCP servers with OAuth authentication:\n  - %s\n\nUse /mcp auth <server-name> to authenticate.",
			strings.Join(servers, "\n  - "))}, nil
	}
	if err := set.AuthenticateMCP(ctx, name); err != nil {
		return Reply{}, fmt.Errorf("Failed to authenticate with MCP server '%s': %w", name, err)
	}
	return Reply{Text: fmt.Sprintf("Successfully authenticated and reloaded tools for '%s'", name)}, nil
}
