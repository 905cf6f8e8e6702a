package setup

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/toolset"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// Options is what a front end knows when it builds the agent.
type Options struct {
	Workspace *workspace.Workspace
	// Getenv reads the process environment; the .env file is layered
	// under it here.
	Getenv  settings.Getenv
	Version string
	Logger  *zap.Logger
	// Warn tells the user of a problem that does not stop the build: the
	// LSP shows it in the editor, headless writes it to stderr.
	Warn func(what string, err error)

	Proposer  tools.ChangeProposer
	Confirmer agent.Confirmer

	// Model and ApprovalMode are the front end's choices (flags,
	// initializationOptions); they win over settings when set.
	Model        string
	ApprovalMode tools.ApprovalMode

	Retry agent.RetryPolicy
}

// Built is the agent and what it was built from.
type Built struct {
	// Agent is nil when AuthErr is set.
	Agent *agent.Agent
	// AuthErr says why there is no agent: missing or invalid credentials,
	// worded for the user.
	AuthErr  error
	Tools    *toolset.Set // nil when AuthErr is set
	Settings settings.Settings
	// Getenv is the environment as the agent sees it: the process's,
	// then the .env file's.
	Getenv settings.Getenv
	// Model and ApprovalMode are what was chosen, and where from.
	Model        string
	ApprovalMode tools.ApprovalMode
}

// Build makes the agent. ctx's values are kept, not its end: what Build
// starts (MCP servers, the discovery command) lasts until Built.Close.
func Build(ctx context.Context, o Options) (*Built, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Warn == nil {
		o.Warn = func(what string, err error) { o.Logger.Warn(what, zap.Error(err)) }
	}
	b := &Built{Getenv: o.Getenv}
	set, err := settings.Load(b.Getenv, o.Workspace.Roots())
	if err != nil {
		o.Warn("some settings were not read", err)
	}
	b.Settings = set

	b.Model = o.Model
	if b.Model == "" {
		b.Model = strings.TrimSpace(b.Getenv("GEMINI_MODEL"))
	}
	if b.Model == "" {
		b.Model = agent.DefaultModel
	}
	b.ApprovalMode = o.ApprovalMode
	if b.ApprovalMode == "" {
		b.ApprovalMode = tools.ApprovalDefault
	}
	switch b.ApprovalMode {
	case tools.ApprovalDefault, tools.ApprovalAutoEdit, tools.ApprovalYolo:
	default:
		return nil, fmt.Errorf("approval mode must be default, auto_edit or yolo, not %q", b.ApprovalMode)
	}

	auth, err := agent.AuthFromEnv(b.Getenv)
	if err != nil {
		b.AuthErr = err
		return b, nil
	}
	auth.Version = o.Version
	gen := agent.NewGenerator(auth) // makes its client on the first prompt
	b.Tools = toolset.Build(ctx, toolset.Config{
		Tools: tools.Options{
			Workspace: o.Workspace,
			Proposer:  o.Proposer,
			Utility:   agent.NewUtility(gen, "", o.Retry),
		},
		Settings: set,
		Getenv:   b.Getenv,
		Version:  o.Version,
		Logger:   o.Logger,
		Warn:     o.Warn,
	})
	var store *sessionstore.Store
	if dir := sessionstore.DefaultDir(b.Getenv); dir != "" {
		if store, err = sessionstore.New(dir, o.Logger); err != nil {
			o.Warn("sessions will not be saved", err)
		}
	}
	b.Agent = agent.New(agent.Config{
		Store:        store,
		Generator:    gen,
		Model:        b.Model,
		Tools:        b.Tools.Registry,
		Workspace:    o.Workspace,
		Confirmer:    o.Confirmer,
		ApprovalMode: b.ApprovalMode,
		Logger:       o.Logger,
		AuthType:     auth.Type,
		Retry:        o.Retry,
		Thinking:     true,
	})
	return b, nil
}

// Close stops what the tools run in the background (MCP servers, the
// discovery command). It is safe on a nil Built.
func (b *Built) Close() {
	if b != nil {
		b.Tools.Close()
	}
}
