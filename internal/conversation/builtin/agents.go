package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/subagents"
)

// Agents is the subagents /agents manages: the composition root's
// catalogue over the definitions' loader and the settings.
type Agents interface {
	// List is every agent found, enabled or not (0.61's discovered
	// definitions), in the catalogue's order.
	List() []subagents.Entry
	// Enable and Disable record the choice where 0.61 records it
	// (agents.overrides.<name>.enabled) and find the agents again; the
	// text says what they did, in 0.61's words, for the user: an agent
	// not found is an error, one already so a text.
	Enable(ctx context.Context, name string) (string, error)
	Disable(ctx context.Context, name string) (string, error)
	// Reload finds the agents again, reading the settings again; the
	// errors are the definitions skipped, each saying which and why.
	Reload(ctx context.Context) []error
	// CredentialWithheld says why remote agent def's configured
	// credential goes with none of its service's requests (its card
	// was redirected to another origin, or names a service on one),
	// once a call has read the card; "" otherwise.
	CredentialWithheld(def subagents.Definition) string
}

// agentsSubcommands are /agents', as Gemini CLI 0.61's
// (packages/cli/src/ui/commands/agentsCommand.ts, chunk-4GP6HFBO.js:
// 76962-77280), list the default: config shows the configuration, where
// 0.61 opens a dialog to edit it.
func agentsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List available local and remote agents", ""), Run: listAgents},
		{Command: also(command("reload", "Reload the agent registry", ""), "refresh"), Run: reloadAgents},
		{Command: command("enable", "Enable a disabled agent", "<agent-name>"), Run: enableAgent, Changes: "the subagents the model may call"},
		{Command: command("disable", "Disable an enabled agent", "<agent-name>"), Run: disableAgent, Changes: "the subagents the model may call"},
		{Command: command("config", "Show an agent's configuration", "<agent-name>"), Run: agentConfig},
	}
}

// errNoAgents is 0.61's answer where there is no agent registry: no
// subagents in this session.
var errNoAgents = errors.New("Agent registry not found.")

// listAgents lists the agents as 0.61's AgentsStatus shows them
// (interactiveCli-F3TDVF3E.js:9299): the local ones, then the remote
// ones, each by display name with its name when that differs, and its
// description; gemini-ls adds where each comes from, and lists the
// disabled ones after, which 0.61 leaves out.
func listAgents(_ context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("agents", "list", "", fmt.Sprintf("/agents list takes no arguments, not %q", args))
	}
	if env.Agents == nil {
		return Reply{}, errNoAgents
	}
	var local, remote, disabled []subagents.Entry
	for _, a := range env.Agents.List() {
		switch {
		case !a.Enabled || !a.Acknowledged:
			disabled = append(disabled, a)
		case a.Definition.Kind == subagents.Remote:
			remote = append(remote, a)
		default:
			local = append(local, a)
		}
	}
	if len(local)+len(remote)+len(disabled) == 0 {
		return Reply{Text: "No agents available."}, nil
	}
	var sections []string
	for _, s := range []struct {
		title string
		list  []subagents.Entry
	}{{"Local Agents", local}, {"Remote Agents", remote}, {"Disabled Agents", disabled}} {
		if len(s.list) > 0 {
			sections = append(sections, "**"+s.title+"**\n\n"+agentItems(env.Agents, s.list))
		}
	}
	return Reply{Text: strings.Join(sections, "\n\n")}, nil
}

func agentItems(all Agents, list []subagents.Entry) string {
	var b strings.Builder
	for i, a := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		d := a.Definition
		fmt.Fprintf(&b, "- **%s**", agentTitle(d))
		if d.DisplayName != "" && d.DisplayName != d.Name {
			fmt.Fprintf(&b, " (%s)", d.Name)
		}
		b.WriteString(" — " + agentSource(d))
		if !a.Acknowledged {
			b.WriteString(" — not offered until the project's agents are acknowledged")
		}
		if d := strings.TrimSpace(d.Description); d != "" {
			b.WriteString("\n  " + strings.ReplaceAll(d, "\n", "\n  "))
		}
		if note := all.CredentialWithheld(d); note != "" {
			b.WriteString("\n  " + note)
		}
	}
	return b.String()
}

// agentTitle is what 0.61 calls an agent: its display name, or its name.
func agentTitle(d subagents.Definition) string {
	if d.DisplayName != "" {
		return d.DisplayName
	}
	return d.Name
}

// agentSource says where an agent comes from: built-in, or its file.
func agentSource(d subagents.Definition) string {
	s := string(d.Source)
	if d.Source == subagents.Extension && d.Extension != "" {
		s += " " + d.Extension
	}
	if d.Path != "" {
		s += ", `" + d.Path + "`"
	}
	return s
}

// findAgent is the agent called name, enabled or not.
func findAgent(a Agents, name string) (subagents.Entry, bool) {
	for _, e := range a.List() {
		if e.Definition.Name == name {
			return e, true
		}
	}
	return subagents.Entry{}, false
}

// agentName reads the one agent name sub takes.
func agentName(env Env, sub, args string) (string, error) {
	name := strings.TrimSpace(args)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return "", subUsage("agents", sub, "<agent-name>", "Please provide one agent name")
	}
	if env.Agents == nil {
		return "", errNoAgents
	}
	return name, nil
}

// enableAgent is 0.61's enableAction: the catalogue writes the choice,
// finds the agents again and words the answer.
func enableAgent(ctx context.Context, env Env, args string) (Reply, error) {
	return toggleAgent(ctx, env, "enable", args, Agents.Enable)
}

// disableAgent is 0.61's disableAction.
func disableAgent(ctx context.Context, env Env, args string) (Reply, error) {
	return toggleAgent(ctx, env, "disable", args, Agents.Disable)
}

// toggleAgent runs toggle (Agents.Enable or Agents.Disable) on the one
// agent args names.
func toggleAgent(ctx context.Context, env Env, sub, args string, toggle func(Agents, context.Context, string) (string, error)) (Reply, error) {
	name, err := agentName(env, sub, args)
	if err != nil {
		return Reply{}, err
	}
	text, err := toggle(env.Agents, ctx, name)
	if err != nil {
		return Reply{}, err
	}
	return Reply{Text: text}, nil
}

// reloadAgents finds the agents again and says what changed, in 0.61's
// words (agentsReloadCommand, chunk-4GP6HFBO.js:77219): counts and
// names of the enabled agents, new, updated (their definition changed)
// and gone; gemini-ls adds what each problem was.
func reloadAgents(ctx context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("agents", "reload", "", fmt.Sprintf("/agents reload takes no arguments, not %q", args))
	}
	if env.Agents == nil {
		return Reply{}, errNoAgents
	}
	before := enabledAgents(env.Agents.List())
	problems := env.Agents.Reload(ctx)
	after := enabledAgents(env.Agents.List())
	var added, updated, deleted []string
	local, remote := 0, 0
	seen := map[string]bool{}
	for _, a := range after.list {
		name := a.Definition.Name
		seen[name] = true
		if a.Definition.Kind == subagents.Remote {
			remote++
		} else {
			local++
		}
		prev, ok := before.byName[name]
		switch {
		case !ok:
			added = append(added, name)
		case !sameDefinition(prev.Definition, a.Definition):
			updated = append(updated, name)
		}
	}
	for _, a := range before.list {
		if !seen[a.Definition.Name] {
			deleted = append(deleted, a.Definition.Name)
		}
	}
	var b strings.Builder
	if len(problems) > 0 {
		b.WriteString("Agents reloaded with errors:")
	} else {
		b.WriteString("Agents reloaded successfully:")
	}
	fmt.Fprintf(&b, "\n- Total: %d (%d local, %d remote)", len(after.list), local, remote)
	for _, l := range []struct {
		label string
		names []string
	}{{"New", added}, {"Updated", updated}, {"Deleted", deleted}} {
		if len(l.names) > 0 {
			fmt.Fprintf(&b, "\n- %s: %s", l.label, strings.Join(l.names, ", "))
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(&b, "\n- Errors: %d encountered during reload", len(problems))
		for _, p := range problems {
			b.WriteString("\n  - " + strings.ReplaceAll(p.Error(), "\n", "\n    "))
		}
	}
	b.WriteString("\n\nRun /agents list to see all available agents.")
	return Reply{Text: b.String()}, nil
}

type agentSet struct {
	list   []subagents.Entry
	byName map[string]subagents.Entry
}

// enabledAgents are the agents 0.61's registry holds: the enabled ones.
func enabledAgents(all []subagents.Entry) agentSet {
	s := agentSet{byName: map[string]subagents.Entry{}}
	for _, a := range all {
		if a.Enabled && a.Acknowledged {
			s.list = append(s.list, a)
			s.byName[a.Definition.Name] = a
		}
	}
	return s
}

// sameDefinition reports whether two definitions say the same, where
// 0.61 compares a hash of the file: by their JSON, which leaves out only
// the report's formatter, code that no file can change.
func sameDefinition(a, b subagents.Definition) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// agentConfig shows an agent's configuration, enabled or not; 0.61 opens
// a dialog to edit it, which gemini-ls has not.
func agentConfig(_ context.Context, env Env, args string) (Reply, error) {
	name, err := agentName(env, "config", args)
	if err != nil {
		return Reply{}, err
	}
	a, ok := findAgent(env.Agents, name)
	if !ok {
		return Reply{}, fmt.Errorf("Agent '%s' not found.", name)
	}
	d := a.Definition
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", agentTitle(d))
	if d.DisplayName != "" && d.DisplayName != d.Name {
		fmt.Fprintf(&b, " (%s)", d.Name)
	}
	if desc := strings.TrimSpace(d.Description); desc != "" {
		b.WriteString("\n\n" + desc)
	}
	b.WriteString("\n")
	item := func(label, value string) { fmt.Fprintf(&b, "\n- %s: %s", label, value) }
	enabled := "no"
	if a.Enabled {
		enabled = "yes"
	}
	item("Enabled", enabled)
	item("Kind", string(d.Kind))
	item("Source", agentSource(d))
	if d.Input.Name != "" {
		item("Input", "`"+d.Input.Name+"`")
	}
	if d.Kind == subagents.Remote {
		switch {
		case d.CardURL != "":
			item("Agent card", d.CardURL)
		case d.CardJSON != "":
			item("Agent card", "inline")
		}
		if d.Auth != nil {
			item("Authentication", d.Auth.Type)
		}
		if note := env.Agents.CredentialWithheld(d); note != "" {
			item("Credential", note)
		}
		return Reply{Text: b.String()}, nil
	}
	model := d.Model
	if model == "" || model == "inherit" {
		model = "inherit (the main agent's)"
	}
	item("Model", "`"+model+"`")
	if d.Temperature != nil {
		item("Temperature", fmt.Sprint(*d.Temperature))
	}
	if d.TopP != nil {
		item("Top-p", fmt.Sprint(*d.TopP))
	}
	if d.Tools == nil {
		item("Tools", "all of the main agent's but invoke_agent")
	} else {
		quoted := make([]string, len(d.Tools))
		for i, t := range d.Tools {
			quoted[i] = "`" + t + "`"
		}
		item("Tools", strings.Join(quoted, ", "))
	}
	if d.MaxTurns > 0 {
		item("Max turns", fmt.Sprint(d.MaxTurns))
	} else {
		item("Max turns", "default")
	}
	if d.Timeout > 0 {
		item("Time limit", d.Timeout.String())
	} else {
		item("Time limit", "default")
	}
	return Reply{Text: b.String()}, nil
}
