package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// live is a running server, its session and the resources it listed.
type live struct {
	server    *server
	session   *sdk.ClientSession
	resources []Resource
}

// Prompt is a prompt an MCP server offers, which the user runs as a
// command (Gemini CLI's McpPromptLoader).
type Prompt struct {
	Server      string
	Name        string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Prompts lists the prompts of the servers running now that offer any,
// by server and then as each listed them. errs are the servers whose
// listing failed, each named.
func (m *Manager) Prompts(ctx context.Context) (prompts []Prompt, errs []error) {
	for _, l := range m.liveServers() {
		if declared(l.session).Prompts == nil {
			continue
		}
		listCtx, cancel := context.WithTimeout(ctx, l.server.cfg.timeout())
		listed, err := listAll(listCtx, "prompts", func(ctx context.Context, cursor string) ([]*sdk.Prompt, string, error) {
			res, err := l.session.ListPrompts(ctx, &sdk.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Prompts, res.NextCursor, nil
		})
		cancel()
		if methodNotFound(err) {
			// As Gemini CLI 0.61's discoverPrompts: none, not a failure.
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("listing the prompts of MCP server %s: %w", l.server.alias, err))
			continue
		}
		for _, p := range listed {
			if p == nil {
				continue
			}
			prompt := Prompt{Server: l.server.alias, Name: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				if a != nil {
					prompt.Arguments = append(prompt.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			prompts = append(prompts, prompt)
		}
	}
	return prompts, errs
}

// GetPrompt has server fill in its prompt name with args, and gives the
// text of the first message, which Gemini CLI sends the model.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	m.mu.Lock()
	l, ok := m.live[server]
	m.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("MCP server %s is not running", server)
	}
	ctx, cancel := context.WithTimeout(ctx, l.server.cfg.timeout())
	defer cancel()
	res, err := l.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("getting prompt %s of MCP server %s: %w", name, server, err)
	}
	if len(res.Messages) == 0 || res.Messages[0] == nil {
		return "", errors.New("received an empty or invalid prompt response from the server")
	}
	text, ok := res.Messages[0].Content.(*sdk.TextContent)
	if !ok || strings.TrimSpace(text.Text) == "" {
		return "", errors.New("received an empty or invalid prompt response from the server")
	}
	return text.Text, nil
}

// liveServers are the running servers, in alias order.
func (m *Manager) liveServers() []live {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]live, 0, len(m.live))
	for _, alias := range m.aliases {
		if l, ok := m.live[alias]; ok {
			out = append(out, l)
		}
	}
	return out
}
