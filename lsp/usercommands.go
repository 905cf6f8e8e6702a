package lsp

import (
	"bytes"
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/setup"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// userCommands reads the user's commands as they are now: the custom
// commands on disk (under the workspace's trust) and the running MCP
// servers' prompts.
func (s *Server) userCommands(ctx context.Context) (commands.UserCommands, *setup.Built, error) {
	s.mu.Lock()
	built := s.built
	s.mu.Unlock()
	if built == nil {
		return commands.UserCommands{}, nil, jsonrpc2.NewError(codeRequestFailed, "the server is not initialized")
	}
	return built.UserCommands(ctx), built, nil
}

// commandInput is what a prompt sends the model: when it starts with
// "/name" naming one of the user's commands, what the command expands to
// (a custom command's prompt, each !{…} decided by the session's approval
// door as a run_shell_command call of it is; an MCP server's prompt), its
// notes and the command files skipped told through emit; else the prompt
// as typed, as Gemini CLI sends a "/xyz" that names no command.
func (s *Server) commandInput(ctx context.Context, sess *agent.Session, in agent.Input, emit func(agent.Event)) (agent.Input, error) {
	inv, ok := commands.Parse(in.Text)
	if !ok || inv.Name == "" {
		return in, nil
	}
	user, built, err := s.userCommands(ctx)
	if err != nil {
		return in, err
	}
	if !user.Has(inv.Name) {
		return in, nil
	}
	for _, err := range user.Errs {
		emit(agent.Event{Kind: agent.EventNotice, Text: err.Error()})
	}
	exp, err := user.Expand(ctx, inv, s.commandShell(built, sess), commands.WorkspaceFiles{WS: s.workspace()})
	if err != nil {
		return in, jsonrpc2.Errorf(codeRequestFailed, "%s was not run: %v", user.Source(inv.Name), err)
	}
	for _, note := range exp.Notes {
		emit(agent.Event{Kind: agent.EventNotice, Text: "/" + inv.Name + ": " + note})
	}
	return agent.Input{Command: inv.Raw, Parts: exp.Parts, Editor: in.Editor}, nil
}

// commandShell runs a custom command's !{…} commands in the first root,
// once the session's approval door allows each (asking, where it must,
// through gemini/confirm or window/showMessageRequest).
func (s *Server) commandShell(built *setup.Built, sess *agent.Session) commands.Shell {
	var dir string
	if roots := s.workspace().Roots(); len(roots) > 0 {
		dir = roots[0]
	}
	return built.CommandShell(sess, dir)
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
func (s *Server) listCommands(ctx context.Context, raw []byte) (any, error) {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && string(trimmed) != "null" {
		var p struct{}
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
	}
	user, _, err := s.userCommands(ctx)
	if err != nil {
		return nil, err
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws
}
