//go:build !unix

package sessionstore

import (
	"net"
	"os"
)

// writeGathered writes buffers to f in turn. Windows appends each write
// of an append-only handle whole, but not several as one.
func writeGathered(f *os.File, buffers net.Buffers) error {
	for _, b := range buffers {
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	return nil
}
