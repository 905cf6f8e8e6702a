package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
)

// commandInfo is one command of gemini/commands' result.
type commandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Hint        string `json:"hint,omitempty"`
	Source      string `json:"source"` // "built-in", "user", "project", "mcp", "extension"
}

// commandsResult is gemini/commands' result.
type commandsResult struct {
	Commands []commandInfo `json:"commands"`
	// Errors are the command files skipped and MCP listings that failed.
	Errors []string `json:"errors,omitempty"`
}

// listCommands answers gemini/commands: the commands a prompt may start
// with, the built-ins and the user's, as every front end has them
// (conversation.Commands).
func (s *Server) listCommands(ctx context.Context, _ noParams) (commandsResult, error) {
	built := s.agentState.setup()
	if built == nil {
		return commandsResult{}, jsonrpc2.NewError(codeRequestFailed, "the server is not initialized")
	}
	list, user := conversation.Commands(ctx, built)
	res := commandsResult{Commands: []commandInfo{}}
	for _, c := range list {
		res.Commands = append(res.Commands, commandInfo{Name: c.Name, Description: c.Description, Hint: c.Hint, Source: c.Source.String()})
	}
	for _, err := range user.Errs {
		res.Errors = append(res.Errors, fmt.Sprint(err))
	}
	return res, nil
}
