//go:build !unix

package workspace

import "context"

// readResolvedInto is readResolved into buf's storage (see readOpened).
func readResolvedInto(ctx context.Context, path, real string, limit int64, buf []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, fi, err := openResolved(path, real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(ctx, f, path, fi.Size(), limit, buf)
}

// readListedInto is readResolvedInto for a path a listing typed a regular
// file: here it is checked again all the same.
func readListedInto(ctx context.Context, path string, limit int64, buf []byte) ([]byte, error) {
	return readResolvedInto(ctx, path, path, limit, buf)
}
