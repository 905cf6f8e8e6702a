package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// pick is the session arg names among list: "latest" (the last one 0.61
// numbers, else the newest old one), its number, or its id.
func pick(list []conversation.Saved, arg string) (conversation.Saved, bool) {
	arg = strings.TrimSpace(arg)
	if arg == "latest" {
		var latest *conversation.Saved
		for i := range list {
			m := &list[i]
			if m.Shared {
				latest = m // the last shared one: the newest start
			}
		}
		if latest == nil && len(list) > 0 {
			latest = &list[len(list)-1]
		}
		if latest == nil {
			return conversation.Saved{}, false
		}
		return *latest, true
	}
	for _, m := range list {
		if m.ID == arg {
			return m, true
		}
	}
	if n, err := strconv.Atoi(arg); err == nil && strconv.Itoa(n) == arg && n >= 1 && n <= len(list) {
		return list[n-1], true
	}
	return conversation.Saved{}, false
}

// session is the session to run the prompt in: a new one, or the saved
// one resume names: "latest", a number of --list-sessions or an id, as
// Gemini CLI's --resume takes them, or a session file saved elsewhere
// (gemini-ls action's artifact), imported into dir's project first.
func session(ctx context.Context, host *conversation.Host[struct{}], built *conversation.Build, resume, id, dir string, out *report) (*conversation.Live[struct{}], error) {
	if id != "" {
		l, err := host.OpenWithID(ctx, built, id, false, struct{}{})
		if errors.Is(err, dialog.ErrSessionExists) {
			return nil, fmt.Errorf("Error starting session: Session ID %q already exists. Use --resume to resume it, or provide a different ID.", id)
		}
		return l, err
	}
	if resume == "" {
		return host.Open(built, false, struct{}{}), nil
	}
	if isSessionFile(resume) {
		imported, err := conversation.ImportSession(ctx, os.Getenv, dir, resume)
		if err != nil {
			return nil, fmt.Errorf("--resume %s: %w", resume, err)
		}
		resume = imported
	}
	list, err := built.SavedSessions(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("--resume %s: %w", resume, err)
	}
	m, ok := pick(list, resume)
	switch {
	case !ok && len(list) == 0 && resume == resumeLatest:
		// As Gemini CLI: nothing to continue is a warning, and a new
		// session.
		out.warn("No previous sessions found for this project.")
		return host.Open(built, false, struct{}{}), nil
	case !ok && len(list) == 0:
		return nil, fmt.Errorf("--resume %s: no previous sessions found for this project", resume)
	case !ok:
		return nil, fmt.Errorf("--resume %s: invalid session identifier; --list-sessions lists the sessions, then use --resume {number}, --resume {id} or --resume latest", resume)
	}
	s, err := host.Resume(ctx, built, m.ID, dir, false, struct{}{})
	switch {
	case conversation.IsUnknownSession(err):
		return nil, fmt.Errorf("--resume %s: there is no saved session with that id (--list-sessions lists them)", resume)
	case err != nil:
		return nil, fmt.Errorf("--resume %s: %w", resume, err)
	}
	return s, nil
}

// isSessionFile reports whether --resume's value is a file's path: no
// id, number or "latest" holds a dot or a slash.
func isSessionFile(resume string) bool {
	return strings.ContainsAny(resume, "./"+string(filepath.Separator))
}

// listSessions prints dir's saved sessions as Gemini CLI 0.61's
// --list-sessions does: numbered by start time, each with its title, how
// long ago it was used and its id; those only gemini-ls sees (its old
// directory) after, marked so. It needs no credentials.
func listSessions(ctx context.Context, getenv settings.Getenv, dir string, stdout, stderr io.Writer) int {
	list, err := conversation.SavedSessions(ctx, getenv, dir)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
		return exitError
	}
	if len(list) == 0 {
		fmt.Fprint(stdout, "No previous sessions found for this project.")
		return 0
	}
	fmt.Fprintf(stdout, "\nAvailable sessions for this project (%d):\n", len(list))
	now := time.Now()
	for i, m := range list {
		title := m.Name
		if len(title) > 100 {
			title = title[:97] + "..."
		}
		only := ""
		if !m.Shared {
			only = ", gemini-ls only"
		}
		fmt.Fprintf(stdout, "  %d. %s (%s%s) [%s]\n", i+1, title, relativeTime(now, m.Updated), only, m.ID)
	}
	return 0
}

// deleteSession deletes the session arg names (a number of
// --list-sessions or an id), as Gemini CLI 0.61's --delete-session does,
// saying so on stdout; an unknown one is a line on stderr and, as there,
// exit status 0.
func deleteSession(ctx context.Context, getenv settings.Getenv, dir, arg string, stdout, stderr io.Writer) int {
	list, err := conversation.SavedSessions(ctx, getenv, dir)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
		return exitError
	}
	if len(list) == 0 {
		fmt.Fprintln(stderr, "No sessions found for this project.")
		return 0
	}
	m, ok := pick(list, arg)
	if !ok || strings.TrimSpace(arg) == "latest" { // 0.61 deletes by number or id only
		fmt.Fprintf(stderr, "Invalid session identifier %q. Use --list-sessions to see available sessions.\n", arg)
		return 0
	}
	if err := conversation.DeleteSaved(getenv, dir, m.ID); err != nil {
		fmt.Fprintf(stderr, "Failed to delete session: %v\n", err)
		return 0
	}
	index := 0
	for i := range list {
		if list[i].ID == m.ID {
			index = i + 1
		}
	}
	fmt.Fprintf(stdout, "Deleted session %d: %s (%s)\n", index, m.Name, relativeTime(time.Now(), m.Updated))
	return 0
}

// relativeTime is 0.61's formatRelativeTime, long style.
func relativeTime(now, t time.Time) string {
	d := now.Sub(t)
	minutes, hours, days := int(d/time.Minute), int(d/time.Hour), int(d/(24*time.Hour))
	plural := func(n int, unit string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s ago", unit)
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case days > 0:
		return plural(days, "day")
	case hours > 0:
		return plural(hours, "hour")
	case minutes > 0:
		return plural(minutes, "minute")
	}
	return "Just now"
}
