package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// userPath is the file a command's argument names: resolved against the
// workspace root, as Gemini CLI resolves it against its working
// directory.
func userPath(root, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(root, name)
}

// writeUserFile writes data to path, a file the user named: anywhere,
// and replacing one that is there, as Gemini CLI does, atomically and
// keeping its mode (safefile.Write). What is there must be a regular
// file, in a directory that exists: a directory, a symbolic link (which
// would send the data where the user did not say, or be replaced by a
// file) or a special file is refused, and nothing is written.
func writeUserFile(path string, data []byte) error {
	switch fi, err := os.Lstat(path); {
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is %s, not a file: nothing was written", path, safefile.DescribeMode(fi.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: no such directory, nothing was written", filepath.Dir(path))
	}
	if err := safefile.Write(path, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
