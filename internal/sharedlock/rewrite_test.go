package sharedlock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	// A change with nothing to change writes nothing: not even the same
	// text again, which would take the file from a program reading it.
	before, _ := os.Stat(path)
	err = Rewrite(t.Context(), path, 1<<10, func([]byte) ([]byte, error) { return []byte("y"), ErrUnchanged }, safefile.WriteIf)
	if after, _ := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("ErrUnchanged: err %v, the file replaced: %v", err, !os.SameFile(before, after))
	}
	// Another program writes without the lock while change runs: its
	// text is kept, and the rewrite says so.
	err = Rewrite(t.Context(), path, 1<<10, func(old []byte) ([]byte, error) {
		os.WriteFile(path, []byte("theirs"), 0o600)
		return []byte("ours"), nil
	}, safefile.WriteIf)
	if err == nil || !strings.Contains(err.Error(), "changed while it was being written") {
		t.Errorf("a file changed meanwhile: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "theirs" {
		t.Errorf("the file = %q, want the other program's", got)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the lock is still there: %v", err)
	}
}
