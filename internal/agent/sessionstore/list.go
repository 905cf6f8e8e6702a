package sessionstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// List returns the saved sessions' metadata, most recently updated first;
// only those of workspace root when root is not "". It considers the
// MaxListed most recently modified files and reads a bounded tail of each,
// never a history. A file that is not a readable session is skipped (and
// logged); an absent directory is an empty list.
func (s *Store) listLegacy(ctx context.Context, root string) ([]Meta, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions in %s: %w", s.dir, err)
	}
	type candidate struct {
		id      string
		modTime time.Time
	}
	var candidates []candidate
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ext)
		if !ok || ValidateID(id) != nil {
			continue
		}
		if !e.Type().IsRegular() {
			s.log.Warn("skipping a session file that is not a regular file", zap.String("path", filepath.Join(s.dir, e.Name())), zap.String("type", safefile.DescribeMode(e.Type())))
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		candidates = append(candidates, candidate{id, info.ModTime()})
	}
	slices.SortFunc(candidates, func(a, b candidate) int { return b.modTime.Compare(a.modTime) })
	candidates = candidates[:min(len(candidates), s.maxListed)]

	if root != "" {
		root = filepath.Clean(root)
	}
	var metas []Meta
	for _, c := range candidates {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := s.readMeta(c.id)
		if err != nil {
			s.log.Warn("skipping a session file", zap.Error(err))
			continue
		}
		if root != "" && (m.Root == "" || filepath.Clean(m.Root) != root) {
			continue
		}
		metas = append(metas, m)
	}
	slices.SortStableFunc(metas, func(a, b Meta) int {
		return cmp.Or(b.Updated.Compare(a.Updated), strings.Compare(a.ID, b.ID))
	})
	return metas, nil
}

// readMeta is session id's latest metadata, from its file's last line. If
// an append was interrupted, the last committed meta line may lie behind a
// long torn line; rather than read that, the header (the metadata of the
// first prompt) stands in, dated by the file's modification time.
func (s *Store) readMeta(id string) (Meta, error) {
	path := filepath.Join(s.dir, id+ext)
	f, fi, err := openRead(path, id)
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
	line, err := lastLine(f, fi.Size())
	if err != nil {
		return Meta{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(line)) == fi.Size() {
		return Meta{}, fmt.Errorf("reading %s: it holds no complete prompt (its first save was interrupted)", path)
	}
	if line != nil {
		if m, err := parseMeta(line, id); err == nil {
			return m, nil
		}
	}
	head, err := firstLine(f, fi.Size())
	if err != nil {
		return Meta{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if head == nil {
		return Meta{}, fmt.Errorf("reading %s: it holds no complete session header", path)
	}
	m, err := parseMeta(head, id)
	if err != nil {
		return Meta{}, fmt.Errorf("reading %s: line 1: %w", path, err)
	}
	if mod := fi.ModTime(); mod.After(m.Updated) {
		m.Updated = mod
	}
	return m, nil
}
