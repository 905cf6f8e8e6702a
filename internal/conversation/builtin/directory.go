package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/setup"
)

func directorySubcommands() []Builtin {
	return []Builtin{
		{Command: command("add", "Add directories to the workspace. Use comma to separate multiple paths", "<path>[,<path>...]"), Run: addDirectories, Changes: "the folders the agent may read and write"},
		{Command: command("show", "Show all directories in the workspace", ""), Run: showDirectories},
	}
}

// addDirectories is Gemini CLI's /directory add: each comma-separated
// path (~ the home directory, relative the first root's) becomes a root
// of the workspace, if it is a trusted folder. It says, in Gemini CLI's
// words, which were added, which were roots already, and which were
// not added and why; an error when none was added and some failed.
func addDirectories(_ context.Context, env Env, args string) (Reply, error) {
	var paths []string
	for _, p := range strings.Split(args, ",") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return Reply{}, subUsage("directory", "add", "<path>[,<path>...]", "Please provide at least one path to add")
	}
	var added, already, untrusted, failed []string
	for _, p := range paths {
		real, isNew, err := env.Built.AddTrustedDirectory(p)
		switch {
		case errors.Is(err, setup.ErrNotTrusted):
			untrusted = append(untrusted, fmt.Sprintf("%s (%v)", p, err))
		case err != nil:
			failed = append(failed, fmt.Sprintf("Error adding '%s': %v", p, err))
		case isNew:
			added = append(added, real)
		default:
			already = append(already, p)
		}
	}
	var parts []string
	if len(already) > 0 {
		parts = append(parts, "The following directories are already in the workspace:\n- "+strings.Join(already, "\n- "))
	}
	if len(added) > 0 {
		parts = append(parts, "Successfully added directories:\n- "+strings.Join(added, "\n- "))
	}
	if len(untrusted) > 0 {
		parts = append(parts, "The following directories were not added because they were not trusted:\n- "+strings.Join(untrusted, "\n- "))
	}
	parts = append(parts, failed...)
	text := strings.Join(parts, "\n\n")
	if len(added) == 0 && len(already) == 0 {
		return Reply{}, errors.New(text)
	}
	return Reply{Text: text}, nil
}

// showDirectories is Gemini CLI's /directory show.
func showDirectories(_ context.Context, env Env, _ string) (Reply, error) {
	return Reply{Text: "Current workspace directories:\n- " + strings.Join(env.Built.Workspace().Roots(), "\n- ")}, nil
}
