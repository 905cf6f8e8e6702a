package commands

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
)

// Prompts is where MCP prompts come from (toolset.Set).
type Prompts interface {
	MCPPrompts(ctx context.Context) ([]mcp.Prompt, []error)
	MCPPrompt(ctx context.Context, server, name string, args map[string]string) (string, error)
}

// UserCommands are the commands that are the user's rather than a front
// end's: the MCP servers' prompts and the custom commands, as they stand
// when read. A custom command replaces an MCP prompt of its name, and
// either a front end's built-in (Gemini CLI loads file commands last, and
// the last of a name wins).
type UserCommands struct {
	Custom  map[string]Custom
	MCP     map[string]mcp.Prompt
	List    []Command // MCP prompts, then custom commands, by name within each
	Errs    []error   // custom command files skipped, MCP listings failed
	prompts Prompts
}

// ReadUserCommands gathers the user's commands: custom (as Load reads
// them; the conversation layer calls it so) and src's MCP prompts (src
// may be nil).
func ReadUserCommands(ctx context.Context, custom []Custom, errs []error, src Prompts) UserCommands {
	u := UserCommands{Custom: map[string]Custom{}, MCP: map[string]mcp.Prompt{}, Errs: errs, prompts: src}
	for _, c := range custom {
		u.Custom[c.Name] = c
	}
	if src != nil {
		prompts, perrs := src.MCPPrompts(ctx)
		u.Errs = append(u.Errs, perrs...)
		for _, p := range prompts {
			name := PromptCommandName(p.Name)
			if _, shadowed := u.Custom[name]; shadowed {
				continue
			}
			if _, taken := u.MCP[name]; taken {
				continue // the first server's, in name order
			}
			u.MCP[name] = p
			u.List = append(u.List, PromptCommand(p))
		}
	}
	for _, c := range custom {
		u.List = append(u.List, c.Command())
	}
	return u
}

// Has reports whether name is one of the user's commands.
func (u UserCommands) Has(name string) bool {
	_, custom := u.Custom[name]
	_, prompt := u.MCP[name]
	return custom || prompt
}

// Expand makes the prompt the model is sent for the user's command inv
// names: a custom command's expansion (sh and files as Custom.Expand
// takes them), or the MCP prompt filled in with inv's arguments.
func (u UserCommands) Expand(ctx context.Context, inv Invocation, sh Shell, files Files) (Expansion, error) {
	if c, ok := u.Custom[inv.Name]; ok {
		return c.Expand(ctx, inv, sh, files)
	}
	p, ok := u.MCP[inv.Name]
	if !ok {
		return Expansion{}, fmt.Errorf("/%s is not a command", inv.Name)
	}
	args, err := PromptArgs(inv.Args, p.Arguments)
	if err != nil {
		return Expansion{}, err
	}
	text, err := u.prompts.MCPPrompt(ctx, p.Server, p.Name, args)
	if err != nil {
		return Expansion{}, err
	}
	return Expansion{Parts: []*genai.Part{genai.NewPartFromText(text)}}, nil
}

// Source says where the command inv names was declared, for what a front
// end tells the user.
func (u UserCommands) Source(name string) string {
	if c, ok := u.Custom[name]; ok && c.Extension != "" {
		return "the command /" + name + " of extension " + c.Extension + " (" + c.File + ")"
	}
	if c, ok := u.Custom[name]; ok {
		return "the custom command /" + name + " (" + c.File + ")"
	}
	if p, ok := u.MCP[name]; ok {
		return "the prompt " + p.Name + " of MCP server " + p.Server
	}
	return "/" + name
}
