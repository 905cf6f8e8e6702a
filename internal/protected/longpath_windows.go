package protected

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// longPath is path with the short (8.3) names of its longest existing
// part resolved to long names by the file system (GetLongPathName), and
// how many of its leading components (separated as path's are) the file
// system named so; path and 0 when no part of it resolves.
func longPath(path string) (long string, known int) {
	rest := ""
	for dir := path; ; dir = filepath.Dir(dir) {
		if resolved, ok := longName(dir); ok {
			return filepath.Join(resolved, rest), len(strings.Split(resolved, string(filepath.Separator)))
		}
		if filepath.Dir(dir) == dir {
			return path, 0
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// longName is the long form of path, which must exist.
func longName(path string) (string, bool) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return "", false
	}
	buf := make([]uint16, windows.MAX_PATH)
	// Twice at most: a buffer too small is told the size it needs (its
	// NUL included), which a path renamed meanwhile may outgrow again.
	for range 2 {
		n, err := windows.GetLongPathName(p, &buf[0], uint32(len(buf)))
		switch {
		case err != nil || n == 0:
			return "", false
		case int(n) < len(buf):
			return windows.UTF16ToString(buf[:n]), true
		}
		buf = make([]uint16, n)
	}
	return "", false
}
