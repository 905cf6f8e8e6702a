package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// readResourceParams are read_mcp_resource's parameters, as Gemini CLI
// 0.61 declares them.
type readResourceParams struct {
	URI string `json:"uri" jsonschema:"The URI of the MCP resource to read."`
}

// readResource is Gemini CLI 0.61's read_mcp_resource
// (read-mcp-resource.ts) over m's resources: declared as 0.61 declares
// it, read-only and of kind read. The model names a resource as
// list_mcp_resources lists it, SERVER:URI, or by its plain URI, which is
// looked up across the running servers' lists, as 0.61's
// McpClientManager.findResourceByUri does.
func readResource(m *Manager) tools.Tool {
	return tools.Define(tools.Spec{
		Name:        tools.ReadResourceName,
		Description: "Reads the content of a specified Model Context Protocol (MCP) resource.",
		Annotations: tools.Annotations{Kind: dialog.KindRead, ReadOnly: true},
	}, func(p readResourceParams) (tools.Call, error) {
		c := &readResourceCall{m: m, uri: p.URI}
		c.found, _, _, c.known = m.resourceByURI(p.URI)
		return c, nil
	})
}

// resource is the resource identifier names, SERVER:URI, and the server
// running it; known false when no running server lists it.
func (m *Manager) resource(identifier string) (Resource, live, bool) {
	server, uri, ok := strings.Cut(identifier, ":")
	if !ok || server == "" {
		return Resource{}, live{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.live[server]
	if !ok {
		return Resource{}, live{}, false
	}
	for _, r := range l.resources {
		if r.URI == uri {
			return r, l, true
		}
	}
	return Resource{}, live{}, false
}

// resourceByURI is the resource identifier names as read_mcp_resource
// takes it: SERVER:URI first, else a plain URI any running server lists,
// as 0.61's McpClientManager.findResourceByUri. known false when none
// does, or when more than one does: then servers are those that list
// it, in alias order, for the model to choose from (0.61 takes the first
// server's, which may not be the one the model meant).
func (m *Manager) resourceByURI(identifier string) (found Resource, at live, servers []string, known bool) {
	if found, at, known = m.resource(identifier); known {
		return found, at, nil, true
	}
	for _, l := range m.liveServers() {
		for _, r := range l.resources {
			if r.URI == identifier {
				if len(servers) == 0 {
					found, at = r, l
				}
				servers = append(servers, l.server.alias)
				break
			}
		}
	}
	if len(servers) != 1 {
		return Resource{}, live{}, servers, false
	}
	return found, at, nil, true
}

type readResourceCall struct {
	m   *Manager
	uri string // as the model gave it
	// found is the resource as the call was built, for its title; known
	// false when no running server listed it then.
	found Resource
	known bool
}

// Title is 0.61's getDescription.
func (c *readResourceCall) Title() string {
	if c.known {
		return `Read MCP resource "` + c.found.Name + `" from server "` + c.found.Server + `"`
	}
	return "Read MCP resource: " + c.uri
}

// Confirmation: none, as 0.61's policies allow it (read-only.toml).
func (*readResourceCall) Confirmation() *tools.Confirmation { return nil }

// Execute reads the resource from the server running it now, its text
// as text and its binary data as a line saying so, in 0.61's words. A
// plain URI more than one server lists is not read: the model is told
// which servers list it, to name one.
func (c *readResourceCall) Execute(ctx context.Context, _ tools.CallInfo) (tools.Result, error) {
	found, at, servers, known := c.m.resourceByURI(c.uri)
	if !known {
		if len(servers) > 1 {
			return failure(fmt.Sprintf("Resource URI %s is listed by more than one MCP server: %s. Name the server as SERVER:URI, e.g. %s:%s",
				c.uri, strings.Join(servers, ", "), servers[0], c.uri)), nil
		}
		return failure("Resource not found for URI: " + c.uri), nil
	}
	contents, err := at.read(ctx, found.URI)
	if err != nil {
		return failure("Failed to read resource: " + err.Error()), nil
	}
	var text strings.Builder
	for _, content := range contents {
		switch {
		case content.Text != "":
			text.WriteString(content.Text + "\n")
		case len(content.Blob) > 0:
			fmt.Fprintf(&text, "[Binary Data (%s)]\n", content.MIMEType)
		}
	}
	out := text.String()
	if out == "" {
		out = "No content returned from resource."
	}
	return tools.Result{Output: out, Display: `Successfully read resource "` + found.Name + `" from server "` + found.Server + `"`}, nil
}

// ErrNoResource is ReadResource's answer for a resource no running
// server lists.
var ErrNoResource = errors.New("no running MCP server lists the resource")

// ResourceContent is one piece of what resources/read returned: text, or
// binary data of a MIME type.
type ResourceContent struct {
	Text     string
	Blob     []byte
	MIMEType string
}

// FindResource is the resource identifier names, SERVER:URI, as 0.61's
// resource registry finds it (findResourceByUri): ok false when no
// running server lists it.
func (m *Manager) FindResource(identifier string) (Resource, bool) {
	r, _, ok := m.resource(identifier)
	return r, ok
}

// ReadResource reads the resource identifier names, SERVER:URI, from the
// server running it now, within the server's timeout: what
// read_mcp_resource and a prompt's @SERVER:URI read. ErrNoResource when
// no running server lists it.
func (m *Manager) ReadResource(ctx context.Context, identifier string) (Resource, []ResourceContent, error) {
	found, at, known := m.resource(identifier)
	if !known {
		return Resource{}, nil, ErrNoResource
	}
	contents, err := at.read(ctx, found.URI)
	return found, contents, err
}

// read reads the resource at uri from l's server, within its timeout.
func (l live) read(ctx context.Context, uri string) ([]ResourceContent, error) {
	s := l.server
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout())
	defer cancel()
	res, err := l.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		if b := s.breach(); b != nil {
			err = b
		}
		return nil, err
	}
	var out []ResourceContent
	for _, content := range res.Contents {
		if content != nil {
			out = append(out, ResourceContent{Text: content.Text, Blob: content.Blob, MIMEType: content.MIMEType})
		}
	}
	return out, nil
}

// failure is an error result saying msg to the model and the user.
func failure(msg string) tools.Result { return tools.Result{Error: msg, Display: "Error: " + msg} }
