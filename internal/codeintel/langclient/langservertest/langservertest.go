// Package langservertest finds, for tests and benchmarks, the pinned
// language servers `make langservers` installs (scripts/langservers.sh).
package langservertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// Bin is the directory make langservers installs the servers in:
// ${XDG_CACHE_HOME:-~/.cache}/gemini-ls/langservers/bin; "" when there
// is no home to find it under.
func Bin() string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "gemini-ls", "langservers", "bin")
}

// Find puts Bin first on PATH for tb (so that what the test starts finds
// the pinned servers too) and returns the path of the server called
// name, failing tb under CI and skipping it elsewhere when it is missing
// (platformtest.Tool).
func Find(tb testing.TB, name string) string {
	tb.Helper()
	if bin := Bin(); bin != "" {
		tb.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return platformtest.Tool(tb, name)
}
