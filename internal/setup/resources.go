package setup

import (
	"context"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/tools/toolset"
)

// mcpResources are the MCP servers' resources, as a prompt's
// @SERVER:URI reaches them (agent.Resources).
type mcpResources struct{ set *toolset.Set }

func (r mcpResources) ResourceURI(identifier string) (string, bool) {
	found, ok := r.set.FindResource(identifier)
	return found.URI, ok
}

func (r mcpResources) ReadResource(ctx context.Context, identifier string) ([]agent.ResourceContent, error) {
	_, contents, err := r.set.ReadResource(ctx, identifier)
	if err != nil {
		return nil, err
	}
	out := make([]agent.ResourceContent, len(contents))
	for i, c := range contents {
		out[i] = agent.ResourceContent{Text: c.Text, Blob: c.Blob, MIMEType: c.MIMEType}
	}
	return out, nil
}
