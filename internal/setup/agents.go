package setup

import (
	"context"
	"errors"
	"slices"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/subagents"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// discoverAgents finds the subagents where Gemini CLI 0.61 finds them
// (package agents): the built-ins, the user's, a trusted first root's
// (once acknowledged) and the enabled extensions'. Each definition
// skipped is told to the user. nil when experimental.enableAgents is
// false.
func (b *Built) discoverAgents(ctx context.Context, set settings.Settings) *subagents.Catalog {
	if !set.AgentsEnabled() {
		return nil
	}
	var root string
	if len(b.projectRoots) > 0 {
		root = b.projectRoots[0]
	}
	catalog, problems := subagents.Load(ctx, subagents.Options{
		UserDir:     settings.UserDir(b.Getenv),
		ProjectRoot: root,
		Trusted:     root != "" && b.Trust.Trusted(root),
		Extensions:  extensionAgents(b.Extensions),
		Overrides:   set.Agents.Overrides,
		BuiltIn:     subagents.BuiltInContext{MainModel: b.Model},
	})
	for _, p := range b.agentProblems(problems) {
		b.opts.Warn("subagents", p)
	}
	return catalog
}

// agentProblems are the problems of finding the agents worth telling
// the user: not that an untrusted project's agents were skipped, which
// 0.61 says in every untrusted folder and tellUntrusted says once with
// the rest of the project's .gemini/.
func (b *Built) agentProblems(problems []error) []error {
	return slices.DeleteFunc(slices.Clone(problems), func(p error) bool {
		return errors.Is(p, subagents.ErrUntrustedProject)
	})
}

// SetModel makes model the one every session's next request goes to,
// and the main model the built-in agents choose theirs by (0.61 reloads
// its local agents on ModelChanged); what that finds wrong is told.
func (b *Built) SetModel(ctx context.Context, model string) {
	b.Agent.SetModel(model)
	if b.Agents != nil {
		for _, p := range b.agentProblems(b.Agents.SetMainModel(ctx, model)) {
			b.opts.Warn("subagents", p)
		}
	}
}

// The catalogue holds a project's agents back until the user
// acknowledged them; the agent's sessions ask.
var _ agent.AgentAcknowledger = (*subagents.Catalog)(nil)

// agentSource is b.Agents as the agent takes it: no interface holding a
// nil catalog; none while tools.core or tools.exclude leave invoke_agent
// out, as Gemini CLI 0.61 then registers no AgentTool.
func (b *Built) agentSource() agent.AgentCatalog {
	if b.Agents == nil || !b.Tools.Offers(tools.NewInvokeAgent(nil)) {
		return nil
	}
	return b.Agents
}

// lookupEnv reads the agent's environment (the process's, then the
// .env file's) for a remote agent's $NAME credentials; empty is unset.
func (b *Built) lookupEnv(name string) (string, bool) {
	v := b.Getenv(name)
	return v, v != ""
}

// extensionAgents are the enabled extensions' agents directories.
func extensionAgents(loaded extensions.Loaded) []subagents.ExtensionDir {
	return subagents.ExtensionAgents(loaded.Active())
}

// AgentCatalog is what /agents works on: b.Agents with the settings
// files its enable and disable write; nil when there are no agents.
func (b *Built) AgentCatalog() *AgentCatalog {
	if b.Agents == nil {
		return nil
	}
	return &AgentCatalog{b: b}
}

// AgentCatalog is b.Agents as /agents takes it.
type AgentCatalog struct{ b *Built }

// List is every agent found, enabled or not.
func (c *AgentCatalog) List() []subagents.Entry { return c.b.Agents.List() }

// CredentialWithheld says why remote agent def's credential goes with
// none of its service's requests, once a call has read its card; ""
// otherwise.
func (c *AgentCatalog) CredentialWithheld(def subagents.Definition) string {
	if c.b.remote == nil {
		return ""
	}
	return c.b.remote.credentialWithheld(def)
}

// Enable turns agent name on in the settings (agents.overrides) and
// finds the agents again.
func (c *AgentCatalog) Enable(ctx context.Context, name string) (string, error) {
	return c.b.Agents.Enable(ctx, c.files(), name)
}

// Disable turns agent name off likewise.
func (c *AgentCatalog) Disable(ctx context.Context, name string) (string, error) {
	return c.b.Agents.Disable(ctx, c.files(), name)
}

// Reload finds the agents again, with the settings' agents.overrides
// as they are now.
func (c *AgentCatalog) Reload(ctx context.Context) []error {
	set, err := c.b.loadSettings()
	if err != nil {
		return []error{err}
	}
	c.b.Agents.SetOverrides(set.Agents.Overrides)
	return c.b.agentProblems(c.b.Agents.Reload(ctx))
}

func (c *AgentCatalog) files() subagents.SettingsFiles {
	user, workspace := c.b.SkillSettingsFiles()
	return subagents.SettingsFiles{User: user, Workspace: workspace}
}
