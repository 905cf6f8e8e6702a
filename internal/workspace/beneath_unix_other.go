//go:build unix && !linux

package workspace

import (
	"fmt"
	"os"
	"syscall"
)

// openBeneath opens rel beneath the directory base (see
// openBeneathRoot): without openat2, os.Root's walk.
func openBeneath(base, rel string, flags int) (int, error) {
	return openBeneathRoot(base, rel, flags)
}

// lstatAt lstats rel beneath base, through os.Root.
func lstatAt(base, rel string, st *syscall.Stat_t) error {
	root, err := os.OpenRoot(base)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Lstat(rel)
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
