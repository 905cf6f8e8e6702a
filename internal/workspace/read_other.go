//go:build !unix

package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// readResolvedInto is readResolved into buf's storage (see readOpened).
func readResolvedInto(ctx context.Context, path string, b *baseDir, rel string, limit int64, buf []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, fi, err := openResolved(path, b, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(ctx, f, path, fi.Size(), limit, buf)
}

// readListedInto is readResolvedInto for a path a listing typed a regular
// file: here it is checked again all the same.
func readListedInto(ctx context.Context, path string, b *baseDir, rel string, limit int64, buf []byte) ([]byte, error) {
	return readResolvedInto(ctx, path, b, rel, limit, buf)
}

func readError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &notExistError{path}
	}
	if isEscape(err) {
		return fmt.Errorf("reading %s: %w", path, errSwapped)
	}
	return fmt.Errorf("reading %s: %w", path, err)
}
