package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
	geminiauth "github.com/gemini-ls/gemini-ls/auth"
	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/toolset"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// Commands the server executes through workspace/executeCommand.
const (
	CommandPrompt = "gemini.prompt"
	CommandCancel = "gemini.cancel"
)

// ProtocolVersion is the version of the gemini/* protocol in docs/protocol.md.
const ProtocolVersion = 1

func (s *Server) initialize(ctx context.Context, raw []byte) (any, error) {
	var p initializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	opts := ClientOptions{}
	if p.InitializationOptions != nil {
		opts = *p.InitializationOptions
	}
	switch opts.ApprovalMode {
	case "":
		opts.ApprovalMode = tools.ApprovalDefault
	case tools.ApprovalDefault, tools.ApprovalAutoEdit, tools.ApprovalYolo:
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: initializationOptions.approvalMode must be one of default, auto_edit, yolo, not %q", opts.ApprovalMode)
	}
	if opts.Model == "" {
		opts.Model = strings.TrimSpace(s.getenv("GEMINI_MODEL"))
	}
	if opts.Model == "" {
		opts.Model = agent.DefaultModel
	}
	roots, err := p.roots()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	ws, err := workspace.New(roots, s.docs)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: workspace roots: %v", err)
	}
	features := p.features()

	s.mu.Lock()
	s.initialized = true
	s.features = features
	s.clientOpts = opts
	s.ws = ws
	s.mu.Unlock()

	ag, err := s.newAgent(ctx, ws, opts)
	s.mu.Lock()
	s.agent, s.agentErr = ag, err
	s.mu.Unlock()
	if err != nil {
		// The server still serves everything else; prompts answer this error.
		s.log.Warn("the agent is unavailable", zap.Error(err))
	}
	s.log.Info("initialized",
		zap.String("client", features.Name),
		zap.Strings("roots", ws.Roots()),
		zap.String("positionEncoding", encodingName(features.Encoding)),
		zap.Bool("editPreview", features.EditPreview),
		zap.Bool("changeAnnotations", features.ChangeAnnotations),
		zap.String("approvalMode", string(opts.ApprovalMode)),
		zap.String("model", opts.Model))
	return initializeResult(features.Encoding, s.opts.Version), nil
}

func (s *Server) newAgent(ctx context.Context, ws *workspace.Workspace, opts ClientOptions) (*agent.Agent, error) {
	auth, err := geminiauth.Resolve("", s.getenv)
	if err != nil {
		return nil, err
	}
	auth.Version = s.opts.Version
	gen := geminiauth.NewGenerator(auth) // makes its client on the first prompt
	set, err := settings.Load(s.getenv, ws.Roots())
	s.warnUser("some settings were not read", err)
	toolSet := toolset.Build(ctx, toolset.Config{
		Tools: tools.Options{
			Workspace: ws,
			Proposer:  &editProposer{s: s},
			Utility:   agent.NewUtility(gen, "", s.opts.Retry),
		},
		Settings: set,
		Getenv:   s.getenv,
		Version:  s.opts.Version,
		Logger:   s.log,
		Warn:     s.warnUser,
	})
	s.mu.Lock()
	s.tools = toolSet
	s.mu.Unlock()
	registry := toolSet.Registry
	return agent.New(agent.Config{
		Generator:    gen,
		Model:        opts.Model,
		Tools:        registry,
		Confirmer:    &confirmer{s: s},
		ApprovalMode: opts.ApprovalMode,
		Logger:       s.log, // the agent's warnings reach the editor too
		AuthType:     auth.Type,
		Retry:        s.opts.Retry,
		Thinking:     true,
	}), nil
}

func initializeResult(enc workspace.Encoding, version string) json.RawMessage {
	return mustJSON(map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": encodingName(enc),
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
				"save":      map[string]any{"includeText": false},
			},
			"codeActionProvider": map[string]any{
				"codeActionKinds": []string{"quickfix", "refactor.rewrite", ""},
			},
			"executeCommandProvider": map[string]any{
				"commands": []string{CommandPrompt, CommandCancel},
			},
			"experimental": map[string]any{
				"gemini": map[string]any{"protocolVersion": ProtocolVersion},
			},
		},
		"serverInfo": map[string]any{"name": "gemini-ls", "version": version},
	})
}
