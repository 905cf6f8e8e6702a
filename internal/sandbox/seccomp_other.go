//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

// seccompFile: bubblewrap, and so its filter, is Linux's alone.
func seccompFile(bool) (*os.File, error) {
	return nil, errors.New("the bubblewrap sandbox runs on Linux only")
}
