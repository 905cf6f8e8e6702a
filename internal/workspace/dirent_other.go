//go:build !linux

package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// dirNames reads directories through os.File.ReadDir.
type dirNames struct{}

func (d *dirNames) reader() *direntReader { return &direntReader{} }

type direntReader struct{}

// direntName is one name read from a directory, typed from the listing.
type direntName struct {
	name string
	typ  fs.FileMode
}

// read returns up to n of f's entries, typed from the listing, and
// whether the directory has no more.
func (*direntReader) read(f *os.File, n int) (entries []direntName, eof bool, err error) {
	for len(entries) < n && !eof {
		more, err := f.ReadDir(n - len(entries))
		if errors.Is(err, io.EOF) {
			eof = true
		} else if err != nil {
			return entries, false, err
		}
		for _, de := range more {
			entries = append(entries, direntName{name: de.Name(), typ: de.Type()})
		}
	}
	return entries, eof, nil
}

func (*direntReader) release() {}
