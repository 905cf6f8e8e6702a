package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// listResourcesParams are list_mcp_resources' parameters, as Gemini CLI
// 0.61 declares them.
type listResourcesParams struct {
	ServerName string `json:"serverName,omitempty" jsonschema:"Optional filter to list resources from a specific server."`
}

// listResources is Gemini CLI 0.61's list_mcp_resources
// (list-mcp-resources.ts) over m's resources: declared as 0.61 declares
// it, read-only and of kind search, listing them in 0.61's words.
func listResources(m *Manager) tools.Tool {
	return tools.Define(tools.Spec{
		Name:        tools.ListResourcesName,
		Description: "Lists all available resources exposed by connected MCP servers.",
		Annotations: tools.Annotations{Kind: dialog.KindSearch, ReadOnly: true},
	}, func(p listResourcesParams) (tools.Call, error) {
		return listResourcesCall{m: m, server: p.ServerName}, nil
	})
}

type listResourcesCall struct {
	m      *Manager
	server string // "": every server's
}

func (listResourcesCall) Title() string { return "List MCP resources" }

// Confirmation: none; it reads what the servers listed when they
// connected.
func (listResourcesCall) Confirmation() *tools.Confirmation { return nil }

func (c listResourcesCall) Execute(context.Context, tools.CallInfo) (tools.Result, error) {
	var found []Resource
	for _, r := range c.m.Resources() {
		if c.server == "" || r.Server == c.server {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		msg := "No MCP resources found."
		if c.server != "" {
			msg = "No resources found for server: " + c.server
		}
		return tools.Result{Output: msg, Display: msg}, nil
	}
	var b strings.Builder
	b.WriteString("Available MCP Resources:\n")
	for _, r := range found {
		b.WriteString("- " + r.Server + ":" + r.URI)
		for _, more := range []string{r.Name, r.Description} {
			if more != "" {
				b.WriteString(" | " + more)
			}
		}
		b.WriteByte('\n')
	}
	return tools.Result{Output: b.String(), Display: fmt.Sprintf("Listed %d resources.", len(found))}, nil
}
