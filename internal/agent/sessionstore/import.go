package sessionstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Import copies the shared session file at path, saved on another
// machine (a GitHub Actions runner's artifact) or for another root, into
// the store's project, where Load, List and Resume find it, and returns
// its session's id. The file must be one Load reads (a header naming a
// valid id, at most MaxFileSize bytes); the project's file of that id,
// if it has one, is replaced: the import is the newer.
func (s *Store) Import(ctx context.Context, path string) (string, error) {
	if _, err := loadShared(ctx, path); err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	h, err := readHeader(path)
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	if err := ValidateID(h.SessionID); err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	data, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	chats, err := s.chats(s.root, true)
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	if chats == "" {
		return "", errors.New("importing a session: there is no Gemini CLI directory (~/.gemini) to keep it in")
	}
	target, err := s.findShared(chats, h.SessionID)
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	if target == "" {
		target = filepath.Join(chats, sharedName(h.SessionID, parseTime(h.StartTime)))
	}
	if err := os.MkdirAll(chats, 0o700); err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	if err := safefile.Replace(target, data, 0o600); err != nil {
		return "", fmt.Errorf("importing %s: %w", path, err)
	}
	return h.SessionID, nil
}
