//go:build unix && !linux

package workspace

import (
	"fmt"
	"syscall"
)

// dirHandleFlags open a base's kept descriptor, which os.Root's walk
// does not use here.
const dirHandleFlags = syscall.O_RDONLY

// openBeneath opens rel beneath the base directory b (see
// openBeneathRoot): without openat2, os.Root's walk.
func openBeneath(b *baseDir, rel string, flags int) (int, error) {
	return openBeneathRoot(b, rel, flags)
}

// lstatAt lstats rel beneath b, through its os.Root.
func lstatAt(b *baseDir, rel string, st *syscall.Stat_t) error {
	fi, err := b.root.Lstat(rel)
	if err != nil {
		return err
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("stat %s: no system stat", rel)
	}
	*st = *sys
	return nil
}
