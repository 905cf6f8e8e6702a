package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/setup"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// userCommands reads the user's commands as they are now: the custom
// commands on disk (under the workspace's trust) and the running MCP
// servers' prompts.
func (s *Server) userCommands(ctx context.Context) (commands.UserCommands, *setup.Built, error) {
	built := s.agentState.setup()
	if built == nil {
		return commands.UserCommands{}, nil, jsonrpc2.NewError(codeRequestFailed, "the server is not initialized")
	}
	return built.UserCommands(ctx), built, nil
}

// commandInfo is one command of gemini/commands' result.
type commandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Hint        string `json:"hint,omitempty"`
	Source      string `json:"source"` // "user", "project", "mcp"
}

// commandsResult is gemini/commands' result.
type commandsResult struct {
	Commands []commandInfo `json:"commands"`
	// Errors are the command files skipped and MCP listings that failed.
	Errors []string `json:"errors,omitempty"`
}

// listCommands answers gemini/commands: the user's commands a prompt may
// start with.
func (s *Server) listCommands(ctx context.Context, _ noParams) (commandsResult, error) {
	user, _, err := s.userCommands(ctx)
	if err != nil {
		return commandsResult{}, err
	}
	res := commandsResult{Commands: []commandInfo{}}
	for _, c := range user.List {
		res.Commands = append(res.Commands, commandInfo{Name: c.Name, Description: c.Description, Hint: c.Hint, Source: c.Source.String()})
	}
	for _, err := range user.Errs {
		res.Errors = append(res.Errors, fmt.Sprint(err))
	}
	return res, nil
}

func (s *Server) workspace() *workspace.Workspace {
	return s.agentState.workspace()
}
