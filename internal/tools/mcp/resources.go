package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a resource an MCP server offers (resources/list), as
// Gemini CLI 0.61's resource registry keeps it.
type Resource struct {
	// Server is the server's alias in the settings.
	Server      string
	URI         string
	Name        string
	Description string
	MIMEType    string
}

// Resources are the resources of the servers running now, by server (in
// alias order), then as each listed them.
func (m *Manager) Resources() []Resource {
	var out []Resource
	for _, l := range m.liveServers() {
		out = append(out, l.resources...)
	}
	return out
}

// resources lists what the server offers as resources once it is
// connected, as 0.61's discoverResources does: none from a server that
// declares no resources capability or does not know resources/list, and
// those with a URI otherwise. Unlike 0.61, whose discovery then fails
// the server, a failed listing is returned for a warning and the server
// keeps its tools. They are listed again on
// notifications/resources/list_changed (Manager.relistResources).
func (s *server) resources(ctx context.Context, session *sdk.ClientSession) ([]Resource, error) {
	if declared(session).Resources == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	listed, err := listAll(ctx, "resources", func(ctx context.Context, cursor string) ([]*sdk.Resource, string, error) {
		res, err := session.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	})
	switch {
	case methodNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("listing resources: %w", err)
	}
	var out []Resource
	for _, r := range listed {
		if r != nil && r.URI != "" {
			out = append(out, Resource{Server: s.alias, URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
		}
	}
	return out, nil
}
