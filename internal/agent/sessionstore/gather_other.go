//go:build !unix

package sessionstore

import (
	"bytes"
	"net"
	"os"
)

// writeGathered writes buffers to f as one write, joined: Windows
// appends a write to an append-only handle whole, but has no writev,
// and pieces written in turn could have another process's line land
// between them. It costs the line's copy, which Unix does without.
func writeGathered(f *os.File, buffers net.Buffers) error {
	_, err := f.Write(bytes.Join(buffers, nil))
	return err
}
