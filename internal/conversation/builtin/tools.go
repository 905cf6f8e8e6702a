package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
	"github.com/gemini-ls/gemini-ls/internal/tools/toolset"
)

// detail is how much of each tool /tools and /mcp show.
type detail int

const (
	detailNames        detail = iota
	detailDescriptions        // "desc"
	detailSchemas             // "schema": descriptions and parameters
)

// toolsSubcommands are /tools', as Gemini CLI 0.61's: list (also its
// documented nodesc) and desc.
func toolsSubcommands() []Builtin {
	return []Builtin{
		{Command: also(command("list", "List the tools the model can call, by name", ""), "nodesc", "nodescriptions"), Run: listTools(detailNames)},
		{Command: also(command("desc", "List the tools with what the model is told of each", ""), "descriptions"), Run: listTools(detailDescriptions)},
	}
}

// listTools lists the tools the session's next request declares
// (agent.Session.OfferedTools: the model's own list, in the session's
// mode), once the MCP servers have listed theirs (as a prompt waits for
// them), each with d of it.
func listTools(d detail) func(context.Context, Env, string) (Reply, error) {
	return func(ctx context.Context, env Env, args string) (Reply, error) {
		if args != "" {
			b, _ := Find("tools")
			return Reply{}, b.usage(fmt.Sprintf("unexpected %q", args))
		}
		_ = env.Built.Tools.WaitForServers(ctx) // a server that did not start is left out
		if err := ctx.Err(); err != nil {
			return Reply{}, err
		}
		decls := env.Session.OfferedTools()
		var b strings.Builder
		for _, decl := range decls {
			fmt.Fprintf(&b, "\n- `%s`", decl.Name)
			if t, ok := env.Built.Tools.Registry.Get(decl.Name); ok {
				if m, ok := t.(toolset.MCPTool); ok {
					server, _ := m.MCPOrigin()
					fmt.Fprintf(&b, " (MCP server `%s`)", server)
				}
			}
			writeDetail(&b, decl, d)
		}
		return Reply{Text: fmt.Sprintf("The model can call %d tools:%s", len(decls), b.String())}, nil
	}
}

// mcpCommand is /mcp, as Gemini CLI 0.61's: list (the default), desc,
// schema, auth, reload, enable and disable; as there, a first word that
// names no subcommand narrows the list to the servers whose names
// contain it.
func mcpCommand() Builtin {
	subs := []Builtin{
		{Command: also(command("list", "List the MCP servers, how each stands and its tools", "[server]"), "ls", "nodesc", "nodescription"), Run: listMCP(detailNames)},
		{Command: also(command("desc", "List the MCP servers and their tools with descriptions", "[server]"), "description"), Run: listMCP(detailDescriptions)},
		{Command: command("schema", "List the MCP servers and their tools with descriptions and parameters", "[server]"), Run: listMCP(detailSchemas)},
		{Command: command("auth", "List the servers that sign in with OAuth, or sign in to one", "[server]"), Run: authMCP},
		{Command: also(command("reload", "Reloads MCP servers", ""), "refresh"), Run: reloadMCP},
		{Command: command("enable", "Enable a disabled MCP server", "<server-name> [--session]"), Run: enableMCP(true), Changes: "the MCP servers"},
		{Command: command("disable", "Disable an MCP server", "<server-name> [--session]"), Run: enableMCP(false), Changes: "the MCP servers"},
	}
	b := withSubcommands(command("mcp", "List the MCP servers, how each stands and its tools; sign in to one", ""), subs)
	run := b.Run
	b.Run = func(ctx context.Context, env Env, args string) (Reply, error) {
		if first, _, _ := strings.Cut(args, " "); first != "" {
			if _, ok := find(subs, first); !ok {
				return listMCP(detailNames)(ctx, env, args)
			}
		}
		return run(ctx, env, args)
	}
	return b
}

// listMCP lists the MCP servers (settings' and the client's) whose names
// contain filter (all for ""), as they stand now, with the tools of those
// running and d of each.
func listMCP(d detail) func(context.Context, Env, string) (Reply, error) {
	return func(_ context.Context, env Env, filter string) (Reply, error) {
		servers := env.Built.Tools.MCPServers()
		if len(servers) == 0 {
			return Reply{Text: "No MCP servers are configured: add them to mcpServers in settings.json (or, over ACP, have the client pass them when it creates the session)."}, nil
		}
		if filter = strings.ToLower(strings.TrimSpace(filter)); filter != "" {
			servers = slices.DeleteFunc(servers, func(s mcp.ServerStatus) bool { return !strings.Contains(strings.ToLower(s.Name), filter) })
			if len(servers) == 0 {
				return Reply{Text: fmt.Sprintf("No MCP server's name contains %q.", filter)}, nil
			}
		}
		reg := env.Built.Tools.Registry
		toolsOf := map[string][]tools.Tool{}
		for _, name := range reg.Names() {
			if t, ok := reg.Get(name); ok {
				if m, ok := t.(toolset.MCPTool); ok {
					server, _ := m.MCPOrigin()
					toolsOf[server] = append(toolsOf[server], t)
				}
			}
		}
		var b strings.Builder
		b.WriteString("MCP servers:\n")
		for _, s := range servers {
			fmt.Fprintf(&b, "- `%s`", s.Name)
			if owner := env.Built.Extensions.ServerOwner(s.Name, env.Built.Settings.MCPServers[s.Name]); owner != "" {
				fmt.Fprintf(&b, " (extension `%s`)", owner)
			}
			b.WriteString(": ")
			switch s.State {
			case mcp.StateReady:
				fmt.Fprintf(&b, "ready, %d tool(s)", s.Tools)
				writeServerTools(&b, toolsOf[s.Name], d)
			case mcp.StateStarting:
				b.WriteString("starting")
			case mcp.StateDisabled:
				b.WriteString("disabled")
				if env.Built.Tools.MCPSessionDisabled(s.Name) {
					b.WriteString(" (session)")
				}
			default:
				fmt.Fprintf(&b, "%s: %s", s.State, s.Error)
			}
			b.WriteByte('\n')
		}
		return Reply{Text: strings.TrimSuffix(b.String(), "\n")}, nil
	}
}

// writeServerTools lists a server's tools: inline by name, else one a
// line with their details.
func writeServerTools(b *strings.Builder, list []tools.Tool, d detail) {
	if len(list) == 0 {
		return
	}
	if d == detailNames {
		var quoted []string
		for _, t := range list {
			quoted = append(quoted, "`"+t.Name()+"`")
		}
		b.WriteString(": " + strings.Join(quoted, ", "))
		return
	}
	for _, t := range list {
		fmt.Fprintf(b, "\n  - `%s`", t.Name())
		writeDetail(b, t.Declaration(), d)
	}
}

// writeDetail adds what d asks of a tool declared as decl: its
// description, indented under its item, and its parameters as JSON
// Schema.
func writeDetail(b *strings.Builder, decl *genai.FunctionDeclaration, d detail) {
	if d == detailNames || decl == nil {
		return
	}
	if desc := strings.TrimSpace(decl.Description); desc != "" {
		b.WriteString(": " + strings.ReplaceAll(desc, "\n", "\n    "))
	}
	if d == detailSchemas {
		if schema := parameters(decl); schema != "" {
			b.WriteString("\n    ```json\n    " + strings.ReplaceAll(schema, "\n", "\n    ") + "\n    ```")
		}
	}
}

// parameters is decl's parameter schema as indented JSON, "" for none.
func parameters(decl *genai.FunctionDeclaration) string {
	var schema any = decl.ParametersJsonSchema
	if schema == nil && decl.Parameters != nil {
		schema = decl.Parameters
	}
	if schema == nil {
		return ""
	}
	out, err := json.MarshalIndent(schema, "", "  ")
	if err != nil {
		return fmt.Sprint(schema)
	}
	return string(out)
}
