package setup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
	"github.com/gemini-ls/gemini-ls/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/memory"
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

	// Overlay is the front end's settings, spelled as settings.json (the
	// LSP's initializationOptions), merged over every file.
	Overlay map[string]any
	// Model and ApprovalMode are the front end's explicit choices (a flag,
	// initializationOptions); they win over the environment and settings.
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
	// Model and ApprovalMode are what was chosen.
	Model        string
	ApprovalMode tools.ApprovalMode
	memory       *memory.Loader
}

// ErrOverlay wraps a front end's settings that cannot be used; the front
// end refuses them (an LSP client gets InvalidParams).
var ErrOverlay = errors.New("invalid settings")

// Build makes the agent. ctx's values are kept, not its end: what Build
// starts (MCP servers, the discovery command) lasts until Built.Close.
func Build(ctx context.Context, o Options) (*Built, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Warn == nil {
		o.Warn = func(what string, err error) { o.Logger.Warn(what, zap.Error(err)) }
	}
	roots := o.Workspace.Roots()
	b := &Built{Getenv: o.Getenv}
	set, err := settings.Load(b.Getenv, roots)
	if err != nil {
		o.Warn("some settings were not read", err)
	}
	if set, err = set.With(o.Overlay); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOverlay, err)
	}
	b.Settings = set
	b.Model = cmp.Or(o.Model, strings.TrimSpace(b.Getenv("GEMINI_MODEL")), set.Model.Name, agent.DefaultModel)
	b.ApprovalMode = tools.ApprovalMode(cmp.Or(string(o.ApprovalMode), set.General.DefaultApprovalMode, string(tools.ApprovalDefault)))
	switch b.ApprovalMode {
	case tools.ApprovalDefault, tools.ApprovalAutoEdit, tools.ApprovalYolo:
	default:
		return nil, fmt.Errorf("%w: the approval mode must be default, auto_edit or yolo, not %q", ErrOverlay, b.ApprovalMode)
	}

	auth, err := agent.AuthFromEnv(b.Getenv)
	if err != nil {
		b.AuthErr = err
		return b, nil
	}
	auth.Version = o.Version
	gen := agent.NewGenerator(auth) // makes its client on the first prompt
	b.memory = memory.New(memory.Config{
		Workspace: o.Workspace,
		UserDir:   settings.UserDir(b.Getenv),
		FileNames: set.Context.FileNames(),
		Trusted:   set.Trusted,
		Logger:    o.Logger,
	})
	b.Tools = toolset.Build(ctx, toolset.Config{
		Tools: tools.Options{
			Workspace: o.Workspace,
			Proposer:  o.Proposer,
			Utility:   agent.NewUtility(gen, "", o.Retry),
			Memory:    b.memory,
		},
		Settings: set,
		Getenv:   b.Getenv,
		Version:  o.Version,
		Logger:   o.Logger,
		Warn:     o.Warn,
	})
	allowed := toolset.ParseAllowed(set.Tools.Allowed, set.MCPServers)
	for _, err := range allowed.Unsupported {
		o.Warn("part of tools.allowed is not used", err)
	}
	keys, trusted := allowed.Keys, allowed.Tools
	for _, name := range allowed.Tools {
		if name == tools.ReplaceName || name == tools.WriteFileName {
			keys = append(keys, tools.EditKey) // edits are confirmed as one kind
		}
	}
	var store *sessionstore.Store
	if dir := sessionstore.DefaultDir(b.Getenv); dir != "" {
		if store, err = sessionstore.New(dir, o.Logger); err != nil {
			o.Warn("sessions will not be saved", err)
		}
	}
	maxTurns := 0
	if !set.Model.UnlimitedTurns() {
		maxTurns = set.Model.MaxSessionTurns
	}
	b.Agent = agent.New(agent.Config{
		Generator:    gen,
		Model:        b.Model,
		Tools:        b.Tools.Registry,
		Workspace:    o.Workspace,
		Store:        store,
		Memory:       b.memory,
		Confirmer:    o.Confirmer,
		ApprovalMode: b.ApprovalMode,
		AllowedKeys:  keys,
		TrustedTools: trusted,
		MaxTurns:     maxTurns,
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
