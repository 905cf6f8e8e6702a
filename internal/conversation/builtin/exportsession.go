package builtin

import (
	"context"
	"errors"
	"fmt"

	"github.com/gemini-ls/gemini-ls/internal/setup"
)

// exportSession is Gemini CLI 0.61's /export-session <file>: the
// session's record as 0.61 resolves and writes it (sessionstore's
// Record), whichever program saved it, to the file named, in 0.61's
// words.
func exportSession(ctx context.Context, env Env, args string) (Reply, error) {
	if args == "" {
		return Reply{}, errors.New("Please provide a file path to export the session to. Example: /export-session ./my-session.json")
	}
	store, err := setup.OpenSessions(env.Built.Getenv, env.Root, nil)
	if err != nil {
		return Reply{}, fmt.Errorf("No active session found to export: %w", err)
	}
	record, err := store.Record(ctx, env.Session.ID())
	if err != nil {
		return Reply{}, fmt.Errorf("Failed to export session: %w", err)
	}
	path := userPath(env.Root, args)
	if err := writeUserFile(path, record); err != nil {
		return Reply{}, fmt.Errorf("Failed to export session: %w", err)
	}
	return Reply{Text: "Successfully exported session to " + path}, nil
}
