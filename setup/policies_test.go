package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The administrator's policies directory is read only when nobody but
// its owner, root, may write it, as Gemini CLI checks it; one that does
// not exist holds nothing and is fine.
func TestSecureDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := secureDir(dir); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Errorf("a directory anyone may write: %v, want it refused", err)
	}
	if err := secureDir(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err := secureDir(dir)
	switch {
	case os.Geteuid() == 0 && err != nil:
		t.Errorf("a root-owned 0755 directory: %v, want it read", err)
	case os.Geteuid() != 0 && (err == nil || !strings.Contains(err.Error(), "not owned by root")):
		t.Errorf("a directory of user %d: %v, want it refused", os.Geteuid(), err)
	}
}
