//go:build !unix

package workspace

import "os"

// openDirBeneath opens the directory rel beneath b for listing,
// through its os.Root; path names it.
func openDirBeneath(path string, b *baseDir, rel string) (*os.File, error) {
	return b.root.OpenFile(rel, os.O_RDONLY, 0)
}
