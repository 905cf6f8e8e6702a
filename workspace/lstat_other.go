//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

// lstatEntries lstats the entries of dir one by one.
func lstatEntries(_ *os.File, entries []fs.DirEntry) ([]fs.FileInfo, []error) {
	infos := make([]fs.FileInfo, len(entries))
	errs := make([]error, len(entries))
	for i, de := range entries {
		infos[i], errs[i] = de.Info()
	}
	return infos, errs
}
