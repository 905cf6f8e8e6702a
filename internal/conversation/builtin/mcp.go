package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/enablement"
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

// reloadMCP is /mcp reload, as Gemini CLI 0.61's: the servers are read
// again from the settings and the extensions and started anew, and the
// list shows them once each has listed its tools or failed.
func reloadMCP(ctx context.Context, env Env, _ string) (Reply, error) {
	if err := env.Built.ReloadMCP(ctx); err != nil {
		return Reply{}, fmt.Errorf("reloading the MCP servers: %w", err)
	}
	list, err := listMCP(detailNames)(ctx, env, "")
	if err != nil {
		return Reply{}, err
	}
	// The servers' prompts are commands: the front end lists them anew.
	return Reply{Text: "Reloading MCP servers...\n\n" + list.Text, CommandsChanged: true}, nil
}

// enableMCP is /mcp enable and /mcp disable, as Gemini CLI 0.61's: the
// server is turned on or off in the user's mcp-server-enablement.json
// (for this session alone with --session), then the servers are
// reloaded, so the next model request offers its tools or does not.
func enableMCP(enable bool) func(context.Context, Env, string) (Reply, error) {
	action := "disable"
	if enable {
		action = "enable"
	}
	return func(ctx context.Context, env Env, args string) (Reply, error) {
		parts := strings.Fields(args)
		session := slices.Contains(parts, "--session")
		parts = slices.DeleteFunc(parts, func(p string) bool { return p == "--session" })
		if len(parts) == 0 {
			return Reply{}, fmt.Errorf("Server name required. Usage: /mcp %s <server-name> [--session]", action)
		}
		name := enablement.Normalize(parts[0])
		if !slices.ContainsFunc(env.Built.Tools.MCPServers(), func(s mcp.ServerStatus) bool { return enablement.Normalize(s.Name) == name }) {
			return Reply{}, fmt.Errorf("Server '%s' not found. Use /mcp list to see available servers.", parts[0])
		}
		if err := setMCPEnabled(ctx, env, name, enable, session); err != nil {
			return Reply{}, err
		}
		if err := env.Built.ReloadMCP(ctx); err != nil {
			return Reply{}, fmt.Errorf("reloading the MCP servers: %w", err)
		}
		state := action + "d"
		if session {
			state += " for this session"
		}
		return Reply{Text: fmt.Sprintf("MCP server '%s' %s.", name, state), CommandsChanged: true}, nil
	}
}

// setMCPEnabled turns the server name on or off: for this session, or in
// the user's enablement file.
func setMCPEnabled(ctx context.Context, env Env, name string, enable, session bool) error {
	set := env.Built.Tools
	if session {
		set.SetMCPSessionDisabled(name, !enable)
		return nil
	}
	file, ok := set.MCPEnablement()
	if !ok {
		return errors.New("the MCP server enablement file cannot be written: neither " + settings.HomeVariable + " nor GEMINI_CLI_HOME is set")
	}
	if enable {
		// As 0.61, which clears a session's disable only when told to.
		return file.Enable(ctx, name)
	}
	return file.Disable(ctx, name)
}
