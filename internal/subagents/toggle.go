package subagents

import (
	"context"
	"fmt"
	"maps"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// SettingsFiles are the settings files /agents enable and disable write:
// the user's, and the workspace's ("" when there is no trusted
// workspace, whose settings 0.61 would not load).
type SettingsFiles struct {
	User, Workspace string
}

// Enable is 0.61's /agents enable NAME (agentsCommand.ts, enableFeature,
// chunk-4GP6HFBO.js:76808, 77008): agents.overrides.NAME.enabled set to
// true in the workspace's and the user's settings, where not true
// already; then the catalog reloads with the agent enabled. The message
// is 0.61's, for the user; err is a failure to write.
func (c *Catalog) Enable(ctx context.Context, files SettingsFiles, name string) (string, error) {
	active, disabled := c.stateOf(name)
	switch {
	case active && !disabled:
		return fmt.Sprintf("Agent '%s' is already enabled.", name), nil
	case !disabled && !active:
		return "", fmt.Errorf("Agent '%s' not found.", name)
	}
	var modified, already []scope
	for _, s := range files.scopes() {
		on, set, err := settings.AgentEnabled(s.path, name)
		if err != nil {
			return "", err
		}
		if set && on {
			already = append(already, s)
			continue
		}
		modified = append(modified, s)
	}
	if len(modified) == 0 {
		return fmt.Sprintf("Agent %q is already enabled.", name), nil
	}
	for _, s := range modified {
		if _, err := settings.SetAgentEnabled(ctx, s.path, name, true); err != nil {
			return "", err
		}
	}
	c.setEnabled(name, true)
	c.Reload(ctx)
	return feedback(name, true, append(modified, already...)), nil
}

// Disable is 0.61's /agents disable NAME: agents.overrides.NAME.enabled
// set to false in the workspace's settings (the user's when there is no
// workspace), unless it is false there already; then the catalog
// reloads without the agent.
func (c *Catalog) Disable(ctx context.Context, files SettingsFiles, name string) (string, error) {
	active, disabled := c.stateOf(name)
	switch {
	case disabled:
		return fmt.Sprintf("Agent '%s' is already disabled.", name), nil
	case !active:
		return "", fmt.Errorf("Agent '%s' not found.", name)
	}
	target := scope{"user", files.User}
	var other *scope
	if files.Workspace != "" {
		target = scope{"project", files.Workspace}
		other = &scope{"user", files.User}
	}
	if on, set, err := settings.AgentEnabled(target.path, name); err != nil {
		return "", err
	} else if set && !on {
		return fmt.Sprintf("Agent %q is already disabled.", name), nil
	}
	if _, err := settings.SetAgentEnabled(ctx, target.path, name, false); err != nil {
		return "", err
	}
	affected := []scope{target}
	if other != nil {
		if on, set, err := settings.AgentEnabled(other.path, name); err == nil && set && !on {
			affected = append(affected, *other)
		}
	}
	c.setEnabled(name, false)
	c.Reload(ctx)
	return feedback(name, false, affected), nil
}

// stateOf says whether agent name is offered now, and whether the
// settings turn it off.
func (c *Catalog) stateOf(name string) (active, disabled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		active = active || e.Definition.Name == name && e.Enabled && e.Acknowledged
	}
	return active, overrideSays(c.opts.Overrides, name, false)
}

// scope is a settings file as /agents names it.
type scope struct{ label, path string }

func (f SettingsFiles) scopes() []scope {
	var out []scope
	if f.Workspace != "" {
		out = append(out, scope{"project", f.Workspace})
	}
	if f.User != "" {
		out = append(out, scope{"user", f.User})
	}
	return out
}

func overrideSays(o map[string]settings.AgentOverride, name string, enabled bool) bool {
	v, ok := o[name]
	return ok && v.Enabled != nil && *v.Enabled == enabled
}

// setEnabled makes the catalog's overrides say what the files now say.
func (c *Catalog) setEnabled(name string, enabled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := maps.Clone(c.opts.Overrides)
	if o == nil {
		o = map[string]settings.AgentOverride{}
	}
	v := o[name]
	v.Enabled = &enabled
	o[name] = v
	c.opts.Overrides = o
}

// feedback is 0.61's renderAgentActionFeedback (chunk-4GP6HFBO.js:76930).
func feedback(name string, enable bool, scopes []scope) string {
	verb, preposition := "disabled", "by setting it to disabled in"
	if enable {
		verb, preposition = "enabled", "by setting it to enabled in"
	}
	format := func(s scope) string { return s.label + " (" + s.path + ")" }
	if len(scopes) == 2 {
		if enable {
			return fmt.Sprintf("Agent %q %s %s %s and %s settings.", name, verb, preposition, format(scopes[0]), format(scopes[1]))
		}
		return fmt.Sprintf("Agent %q is now disabled in both %s and %s settings.", name, format(scopes[0]), format(scopes[1]))
	}
	return fmt.Sprintf("Agent %q %s %s %s settings.", name, verb, preposition, format(scopes[0]))
}
