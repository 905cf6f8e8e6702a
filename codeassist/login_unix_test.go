//go:build unix

package codeassist_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/codeassist"
)

// A FIFO in the credentials' place is refused, not opened: opening it
// would block until someone writes.
func TestCheckLoginRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oauth_creds.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- codeassist.CheckLogin(path) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CheckLogin blocked on a FIFO")
	}
}
