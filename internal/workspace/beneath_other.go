//go:build !unix

package workspace

import "os"

// openDirBeneath opens the directory rel beneath base for listing,
// through os.Root; path names it.
func openDirBeneath(path, base, rel string) (*os.File, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenFile(rel, os.O_RDONLY, 0)
}
