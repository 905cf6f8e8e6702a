package builtin

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// tasksSubcommands are /tasks's: Gemini CLI 0.61's /tasks toggles its
// view of the session's background processes, where the user also kills
// one; outside a terminal the view is a listing, and the kill a
// subcommand.
func tasksSubcommands() []Builtin {
	return []Builtin{
		{Command: command("list", "List the session's background processes, running and ended", ""), Run: listTasks},
		{Command: command("kill", "Kill a background process of the session, and all it started", "<pid>"), Run: killTask},
	}
}

// listTasks lists them as list_background_processes lists them to the
// model.
func listTasks(_ context.Context, env Env, _ string) (Reply, error) {
	return Reply{Text: tools.BackgroundListing(env.Session.Background().List())}, nil
}

// killTask kills the process the PID names, if the session started it.
func killTask(_ context.Context, env Env, args string) (Reply, error) {
	pid, err := strconv.Atoi(args)
	if err != nil {
		return Reply{}, subUsage("tasks", "kill", "<pid>", fmt.Sprintf("%q is not a PID", args))
	}
	e, ok := env.Session.Background().Get(pid)
	if !ok {
		return Reply{}, fmt.Errorf("no background process %d in this session; /tasks lists them", pid)
	}
	if !e.Running() {
		return Reply{Text: fmt.Sprintf("Background process %d (`%s`) has already ended.", pid, e.Command)}, nil
	}
	if err := e.Process.Kill(); err != nil {
		return Reply{}, fmt.Errorf("killing background process %d: %w", pid, err)
	}
	return Reply{Text: fmt.Sprintf("Killed background process %d (`%s`).", pid, e.Command)}, nil
}
