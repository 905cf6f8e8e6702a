//go:build !unix

package workspace

import (
	"io/fs"
	"os"
)

// keepBases: on Windows a directory kept open could not be renamed or
// removed (a sharing violation, under Wine at least) while gemini-ls
// runs, so each use opens its base and closes it after, as before bases
// were kept.
const keepBases = false

// dirID is the directory as opened.
type dirID struct{ fi fs.FileInfo }

// dirHandle: here os.Root does all.
type dirHandle struct{}

func (h *dirHandle) close() {}

// openDirHandle notes the directory root holds.
func openDirHandle(base string, root *os.Root) (*dirHandle, dirID, error) {
	fi, err := root.Stat(".")
	if err != nil {
		return nil, dirID{}, err
	}
	return nil, dirID{fi: fi}, nil
}

// current reports whether b's name still names the directory opened.
func (b *baseDir) current() bool {
	fi, err := os.Lstat(b.path)
	return err == nil && os.SameFile(fi, b.id.fi)
}
