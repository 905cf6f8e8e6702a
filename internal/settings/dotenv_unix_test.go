//go:build unix

package settings_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// A .env that is not a regular file is reported, not read: a FIFO would
// block the server for good.
func TestDotenvUnsafeFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".env"), 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		getenv settings.Getenv
		path   string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		getenv, path, err := settings.LoadDotenv(lookup(map[string]string{}), settings.DotenvOptions{Dir: dir, Trusted: true})
		done <- result{getenv, path, err}
	}()
	var fe *settings.FileError
	select {
	case r := <-done:
		if !errors.As(r.err, &fe) || r.path != filepath.Join(dir, ".env") || !strings.Contains(r.err.Error(), "not a regular file") || r.getenv("X") != "" {
			t.Errorf("FIFO: %v (path %q)", r.err, r.path)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadDotenv blocked on a FIFO")
	}

}
