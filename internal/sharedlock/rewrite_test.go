package sharedlock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// Rewrite gives change nil for a missing file and the text of one there
// (empty, not nil, for an empty one), writes what change returns, and
// leaves the file as it is when change fails; the lock is gone after.
func TestRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.json")
	var seen [][]byte
	change := func(old []byte) ([]byte, error) {
		seen = append(seen, old)
		return append(old, 'x'), nil
	}
	for range 2 {
		if err := Rewrite(t.Context(), path, 1<<10, change, safefile.WriteIf); err != nil {
			t.Fatal(err)
		}
	}
	if seen[0] != nil || string(seen[1]) != "x" {
		t.Errorf("change was given %q", seen)
	}
	os.WriteFile(path, nil, 0o600)
	Rewrite(t.Context(), path, 1<<10, change, safefile.WriteIf)
	if seen[2] == nil {
		t.Error("an empty file was given as none")
	}
	refused := errors.New("refused")
	err := Rewrite(t.Context(), path, 1<<10, func([]byte) ([]byte, error) { return nil, refused }, safefile.WriteIf)
	if !errors.Is(err, refused) {
		t.Errorf("change's error came back as %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "x" {
		t.Errorf("the file = %q, want it as the last write left it", got)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the lock is still there: %v", err)
	}
}
