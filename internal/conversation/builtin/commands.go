package builtin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/conversation/commands"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// commandsSubcommands are /commands', as Gemini CLI 0.61's: list and
// reload.
func commandsSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List the custom command files (.toml) of each directory, and those skipped", ""), Run: listCommandFiles},
		{Command: also(command("reload", "Read the custom commands again, and have the editor list them anew", ""), "refresh"), Run: reloadCommands},
	}
}

// mcpPromptsNote is 0.61's note under its list.
const mcpPromptsNote = "_Note: MCP prompts are dynamically loaded from configured MCP servers._"

// listCommandFiles lists the custom commands' files by directory, as
// 0.61's /commands list does: the user's, the project's, each extension's;
// then the files skipped, and why. They are the commands as read for this
// prompt (Env.User), so a project file shadowing one of the user's shows
// in its place only.
func listCommandFiles(_ context.Context, env Env, _ string) (Reply, error) {
	groups := map[string][]commands.Custom{}
	for _, c := range env.User.Custom {
		dir := commandsDir(env, c)
		groups[dir] = append(groups[dir], c)
	}
	var b strings.Builder
	for _, dir := range slices.SortedFunc(maps.Keys(groups), func(x, y string) int {
		return cmp.Or(cmp.Compare(groups[x][0].Source, groups[y][0].Source), strings.Compare(x, y))
	}) {
		list := groups[dir]
		slices.SortFunc(list, func(x, y commands.Custom) int { return strings.Compare(x.File, y.File) })
		fmt.Fprintf(&b, "### %s Commands (%s)\n", groupName(list[0]), dir)
		for _, c := range list {
			rel, err := filepath.Rel(dir, c.File)
			if err != nil {
				rel = c.File
			}
			fmt.Fprintf(&b, "- %s (`/%s`)\n", filepath.ToSlash(rel), c.Name)
		}
	}
	if skipped := skippedFiles(env.User); len(skipped) > 0 {
		b.WriteString("### Skipped\n" + strings.Join(skipped, "\n") + "\n")
	}
	if b.Len() == 0 {
		return Reply{Text: "No custom command files (.toml) found.\n\n" + mcpPromptsNote}, nil
	}
	return Reply{Text: b.String() + "\n" + mcpPromptsNote}, nil
}

// skippedFiles are the command files u skipped, a line each.
func skippedFiles(u commands.UserCommands) []string {
	var lines []string
	for _, err := range u.Errs {
		if _, ok := errors.AsType[*commands.FileError](err); ok {
			lines = append(lines, "- "+err.Error())
		}
	}
	return lines
}

// commandsDir is the directory custom command c was read from.
func commandsDir(env Env, c commands.Custom) string {
	switch c.Source {
	case commands.User:
		return commands.Dir(settings.UserDir(env.Built.Getenv))
	case commands.Project:
		return commands.ProjectDir(env.Root)
	}
	for _, e := range env.Built.Extensions.Active() {
		if e.Name == c.Extension {
			return e.CommandsDir()
		}
	}
	return filepath.Dir(c.File)
}

// groupName is how 0.61 names the directory c was read from.
func groupName(c commands.Custom) string {
	switch c.Source {
	case commands.User:
		return "User"
	case commands.Project:
		return "Project"
	}
	return "Extension: " + c.Extension
}

// reloadCommands is 0.61's /commands reload. The custom commands are read
// from disk at every prompt that starts with "/", this one too, so they
// are as the files are now: it says what was read, and has the front end
// list the commands anew (ACP's available_commands_update).
func reloadCommands(_ context.Context, env Env, _ string) (Reply, error) {
	text := fmt.Sprintf("Custom commands reloaded successfully: %d custom command(s) and %d MCP prompt(s).", len(env.User.Custom), len(env.User.MCP))
	if n := len(skippedFiles(env.User)); n > 0 {
		text += fmt.Sprintf(" %d file(s) could not be loaded: /commands list names them.", n)
	}
	return Reply{Text: text, CommandsChanged: true}, nil
}
