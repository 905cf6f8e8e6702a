package acp

// What a client sets on a session that its saved file has no place for:
// the title it gave (session/set_title) and whether it archived the
// session (session/archive). They are kept per user in gemini-ls's
// state directory, one file for every ACP connection, read and
// rewritten under a lock so that two gemini-ls processes keep each
// other's changes; session/list, session_info_update and session/status
// read them, session/delete forgets them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

const (
	// labelsFile is the file's name in the state directory.
	labelsFile = "acp-sessions.json"
	// maxLabelsFile bounds the file: a title is 80 runes at most, and
	// only a session that exists gets one.
	maxLabelsFile = 8 << 20
	// titleRunes bounds a title the client sets, as the titles gemini-ls
	// makes are bounded (sessionstore.TitleRunes).
	titleRunes = 80
)

// sessionLabel is what the client set on one session.
type sessionLabel struct {
	Title    string `json:"title,omitempty"`
	Archived bool   `json:"archived,omitempty"`
}

// labels is the file's content.
type labels struct {
	Sessions map[string]sessionLabel `json:"sessions"`
}

// labelsPath is the file getenv's user keeps them in; "" without a
// state directory (no HOME), when sessions are not saved either.
func labelsPath(getenv func(string) string) string {
	dir := settings.StateDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, labelsFile)
}

// readLabels reads what the clients set; nothing when there is no file.
func readLabels(getenv func(string) string) (map[string]sessionLabel, error) {
	path := labelsPath(getenv)
	if path == "" {
		return map[string]sessionLabel{}, nil
	}
	b, err := safefile.Read(path, maxLabelsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]sessionLabel{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sessions' titles and archive: %w", err)
	}
	return parseLabels(b, path)
}

func parseLabels(b []byte, path string) (map[string]sessionLabel, error) {
	var l labels
	if len(strings.TrimSpace(string(b))) > 0 {
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s is not the sessions' titles and archive gemini-ls writes: %w", path, err)
		}
	}
	if l.Sessions == nil {
		l.Sessions = map[string]sessionLabel{}
	}
	return l.Sessions, nil
}

// changeLabel changes session id's label with change, under the file's
// lock; a label left empty is dropped.
func changeLabel(ctx context.Context, getenv func(string) string, id string, change func(*sessionLabel)) error {
	path := labelsPath(getenv)
	if path == "" {
		return errors.New("there is no state directory (neither XDG_STATE_HOME nor HOME is set), so nothing of a session is kept")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("keeping the session's title and archive: %w", err)
	}
	err := sharedlock.Rewrite(ctx, path, maxLabelsFile, func(old []byte) ([]byte, error) {
		all, err := parseLabels(old, path)
		if err != nil {
			return nil, err
		}
		l := all[id]
		change(&l)
		if l == all[id] {
			return nil, sharedlock.ErrUnchanged
		}
		if l == (sessionLabel{}) {
			delete(all, id)
		} else {
			all[id] = l
		}
		return json.MarshalIndent(labels{Sessions: all}, "", "  ")
	}, safefile.ReplacerIf(0o600))
	if err != nil {
		return fmt.Errorf("keeping the session's title and archive: %w", err)
	}
	return nil
}

// normalTitle is a title as it is kept: one line, trimmed, at most
// titleRunes runes; "" when nothing is left.
func normalTitle(title string) string {
	return ellipsis.Cut(strings.Join(strings.Fields(title), " "), titleRunes)
}

// label is what the client set on session id; nothing when it cannot
// be read (logged).
func (s *server) label(id string) sessionLabel {
	all, err := readLabels(s.getenv(""))
	if err != nil {
		s.log.Warn(err.Error())
	}
	return all[id]
}
