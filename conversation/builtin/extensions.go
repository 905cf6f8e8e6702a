package builtin

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/conversation/commands"
	"github.com/gemini-ls/gemini-ls/extensions"
)

func extensionsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List the installed extensions and what each contributes", ""), Run: listExtensions},
	}
}

// listExtensions lists the extensions as this process loaded them at its
// start (a change takes effect on restart, as in Gemini CLI): each with
// its version, whether it is enabled here, and what it contributes; then
// those that could not be loaded, and why.
func listExtensions(_ context.Context, env Env, args string) (Reply, error) {
	if args != "" {
		return Reply{}, subUsage("extensions", "list", "", fmt.Sprintf("unexpected %q", args))
	}
	loaded := env.Built.Extensions
	if len(loaded.All) == 0 && len(loaded.Errs) == 0 {
		return Reply{Text: "No extensions installed: install one with `gemini extensions install <source>` (or `link <path>`); gemini-ls loads those in ~/.gemini/extensions."}, nil
	}
	var b strings.Builder
	if len(loaded.All) > 0 {
		fmt.Fprintf(&b, "Installed extensions (%d):\n", len(loaded.All))
	}
	for _, e := range loaded.All {
		writeExtension(&b, e, env.Commands)
	}
	if len(loaded.Errs) > 0 {
		b.WriteString("Not loaded:\n")
		for _, err := range loaded.Errs {
			fmt.Fprintf(&b, "- %v\n", err)
		}
	}
	b.WriteString("Changes take effect when gemini-ls starts again.")
	return Reply{Text: b.String()}, nil
}

// writeExtension is e's entry: its name, version and state, then what it
// contributes (only while enabled).
func writeExtension(b *strings.Builder, e extensions.Extension, cmds []commands.Command) {
	state := "enabled"
	if !e.Enabled {
		state = "disabled here"
	}
	fmt.Fprintf(b, "- `%s` %s — %s", e.Name, e.Version, state)
	if e.Install.Type == "link" {
		fmt.Fprintf(b, ", linked to %s", e.Path)
	} else {
		fmt.Fprintf(b, ", %s", e.Path)
	}
	b.WriteByte('\n')
	if e.Description != "" {
		fmt.Fprintf(b, "  %s\n", e.Description)
	}
	if !e.Enabled {
		return
	}
	item := func(what string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(b, "  - %s: %s\n", what, strings.Join(names, ", "))
		}
	}
	item("MCP servers", quoted(slices.Sorted(maps.Keys(e.MCPServers))))
	item("Context files", e.ContextFiles)
	var names []string
	for _, c := range cmds {
		if c.Source == commands.Extension && c.Extension == e.Name {
			names = append(names, "/"+c.Name)
		}
	}
	item("Commands", quoted(names))
	item("Excluded tools", quoted(e.ExcludeTools))
	var more []string
	for _, p := range []struct{ what, path string }{{"skills", e.SkillsDir()}, {"policies", e.PoliciesDir()}, {"hooks", e.HooksFile()}} {
		if _, err := os.Stat(p.path); err == nil {
			more = append(more, p.what+" ("+p.path+")")
		}
	}
	item("Also", more)
	for _, s := range e.Settings {
		state := "not set"
		if s.Set {
			state = "set"
		}
		fmt.Fprintf(b, "  - Setting %s (%s): %s\n", s.Name, s.EnvVar, state)
	}
}
