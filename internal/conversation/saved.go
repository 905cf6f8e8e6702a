package conversation

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/setup"
)

// Saved is a saved session as a command line lists it.
type Saved struct {
	ID string
	// Name is what Gemini CLI 0.61's list shows: its summary, else its
	// first prompt (gemini-ls's title for one only gemini-ls sees).
	Name    string
	Updated time.Time
	// Shared: 0.61 lists it too (under the same number); false for one
	// only gemini-ls sees (its old directory, or nothing left to resume).
	Shared bool
}

// projectDir is dir as Gemini CLI names the project: absolute, symlinks
// resolved (its working directory).
func projectDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// SavedSessions are dir's saved sessions numbered as Gemini CLI 0.61's
// --list-sessions numbers them: the ones it lists first, by start time
// (the first is 1); those only gemini-ls sees after them, oldest first.
// It reads files only: no build, no credentials.
func SavedSessions(ctx context.Context, getenv settings.Getenv, dir string) ([]Saved, error) {
	dir = projectDir(dir)
	store, err := setup.OpenSessions(getenv, dir, nil)
	if errors.Is(err, setup.ErrNoSessionDir) {
		return nil, nil // sessions are not saved without HOME
	}
	if err != nil {
		return nil, fmt.Errorf("listing saved sessions: %w", err)
	}
	shared, err := store.ListShared(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("listing saved sessions: %w", err)
	}
	all, err := store.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("listing saved sessions: %w", err)
	}
	out := make([]Saved, 0, len(all))
	for _, m := range shared {
		out = append(out, Saved{ID: m.ID, Name: m.DisplayName, Updated: m.Updated, Shared: true})
	}
	var only []Saved
	for _, m := range all {
		if !m.Shared {
			only = append(only, Saved{ID: m.ID, Name: m.Title, Updated: m.Updated})
		}
	}
	for i := len(only) - 1; i >= 0; i-- { // List is newest first
		out = append(out, only[i])
	}
	return out, nil
}

// DeleteSaved deletes saved session id of dir's project: its shared file
// and its old one.
func DeleteSaved(getenv settings.Getenv, dir, id string) error {
	store, err := setup.OpenSessions(getenv, projectDir(dir), nil)
	if err != nil {
		return err
	}
	return store.Delete(id)
}

// SessionFile is the file saved session id of dir's project is kept in.
func SessionFile(getenv settings.Getenv, dir, id string) (string, error) {
	store, err := setup.OpenSessions(getenv, projectDir(dir), nil)
	if err != nil {
		return "", err
	}
	return store.File(id)
}

// ImportSession copies a session file saved elsewhere (a GitHub Actions
// runner's artifact) into dir's project, where --resume finds it, and
// returns its session's id (sessionstore.Store.Import).
func ImportSession(ctx context.Context, getenv settings.Getenv, dir, path string) (string, error) {
	store, err := setup.OpenSessions(getenv, projectDir(dir), nil)
	if err != nil {
		return "", err
	}
	return store.Import(ctx, path)
}
