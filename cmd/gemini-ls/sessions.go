package main

import (
	"context"
	"fmt"
	"io"

	"github.com/gemini-ls/gemini-ls/conversation"
	agentsetup "github.com/gemini-ls/gemini-ls/setup"
)

// session is the session to run the prompt in: a new one, or the saved
// one resume names ("latest": the newest of dir).
func session(ctx context.Context, host *conversation.Host[struct{}], built *agentsetup.Built, resume, dir string) (*conversation.Live[struct{}], error) {
	if resume == "" {
		return host.Open(built, false, struct{}{}), nil
	}
	s, err := host.Resume(ctx, built, resume, dir, false, struct{}{})
	switch {
	case conversation.IsUnknownSession(err):
		return nil, fmt.Errorf("--resume %s: there is no saved session with that id (gemini-ls run -list-sessions lists them)", resume)
	case err != nil:
		return nil, fmt.Errorf("--resume %s: %w", resume, err)
	}
	return s, nil
}

// listSessions prints dir's saved sessions, newest first: id, when, how
// many prompts, title.
func listSessions(ctx context.Context, host *conversation.Host[struct{}], built *agentsetup.Built, dir string, stdout, stderr io.Writer) int {
	list, err := host.List(ctx, built, dir)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
		return exitError
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "gemini-ls: no saved sessions for %s\n", dir)
		return 0
	}
	for _, s := range list {
		fmt.Fprintf(stdout, "%s\t%s\t%d prompts\t%s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Prompts, s.Title)
	}
	return 0
}
