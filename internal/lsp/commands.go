package lsp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// The workspace/executeCommand commands put the agent within reach of
// clients that cannot send gemini/* requests (Helix, stock eglot, Neovim
// without our plugin). They are declared once, here: dispatch, the
// executeCommandProvider list and the "unknown command" error derive from
// serverCommands.

// Commands the server executes through workspace/executeCommand.
const (
	CommandPrompt     = "gemini.prompt"
	CommandNewSession = "gemini.newSession"
	CommandCancel     = "gemini.cancel"
)

// serverCommand is one command: its name, its result's type and what
// runs it.
type serverCommand struct {
	name   string
	result reflect.Type
	run    func(s *Server, ctx context.Context, args []json.RawMessage) (any, error)
}

// commandOf declares a command run by fn.
func commandOf[R any](name string, fn func(*Server, context.Context, []json.RawMessage) (R, error)) serverCommand {
	return serverCommand{name: name, result: reflect.TypeFor[R](), run: func(s *Server, ctx context.Context, args []json.RawMessage) (any, error) {
		r, err := fn(s, ctx, args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}}
}

func serverCommands() []serverCommand {
	return []serverCommand{
		commandOf(CommandPrompt, (*Server).promptCommand),
		commandOf(CommandNewSession, (*Server).newSessionCommand),
		commandOf(CommandCancel, (*Server).cancelCommand),
		commandOf(CommandAcceptCompletion, (*Server).acceptCompletionCommand),
		commandOf(CommandEditSelection, (*Server).editSelectionCommand),
		commandOf(CommandStartAgent, (*Server).startAgentCommand),
		commandOf(CommandAgents, (*Server).agentsCommand),
		commandOf(CommandLandAgent, (*Server).landAgentCommand),
		commandOf(CommandDiscardAgent, (*Server).discardAgentCommand),
		commandOf(CommandDelegate, (*Server).delegateCommand),
		commandOf(CommandFollowUpAgent, (*Server).followUpAgentCommand),
	}
}

func commandNames() []string {
	var names []string
	for _, c := range serverCommands() {
		names = append(names, c.name)
	}
	return names
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// executeCommand answers workspace/executeCommand; the result is the
// command's.
func (s *Server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	if p.Command == "" {
		return nil, missingField("command")
	}
	for _, c := range serverCommands() {
		if c.name == p.Command {
			return c.run(s, ctx, p.Arguments)
		}
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: unknown command %q (known: %s)", p.Command, strings.Join(commandNames(), ", "))
}

// commandPromptArgs is gemini.prompt's single argument.
type commandPromptArgs struct {
	Prompt *string `json:"prompt"`
	// SessionID continues that session (and makes it the root's
	// conversation); empty continues the root's conversation.
	SessionID   string       `json:"sessionId,omitempty"`
	URI         string       `json:"uri,omitempty"`
	Range       *lspRange    `json:"range,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
}

// commandScope is the optional argument of gemini.newSession and
// gemini.cancel: which conversation (by a file in its root) or session.
type commandScope struct {
	SessionID string `json:"sessionId,omitempty"`
	URI       string `json:"uri,omitempty"`
}

// promptArg decodes gemini.prompt's argument; Helix's
// :lsp-workspace-command and Neovim's execute_command easily send a bare
// string, which is the prompt.
func promptArg(args []json.RawMessage) (commandPromptArgs, error) {
	var a commandPromptArgs
	if len(args) == 0 {
		return a, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: gemini.prompt needs an argument: the prompt, or {"prompt": "..."}`)
	}
	var prompt string
	if json.Unmarshal(args[0], &prompt) == nil {
		a.Prompt = &prompt
	} else if err := decodeParams(args[0], &a); err != nil {
		return a, err
	}
	if a.Prompt == nil || strings.TrimSpace(*a.Prompt) == "" {
		return a, jsonrpc2.NewError(jsonrpc2.InvalidParams, `invalid params: gemini.prompt needs an argument: the prompt, or {"prompt": "..."}`)
	}
	return a, nil
}

// scopeArg decodes an optional commandScope argument.
func scopeArg(args []json.RawMessage) (commandScope, error) {
	var sc commandScope
	if len(args) == 0 || string(args[0]) == "null" {
		return sc, nil
	}
	err := decodeParams(args[0], &sc)
	return sc, err
}
