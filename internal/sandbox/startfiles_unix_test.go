//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// What is in the records' directory and is not a file is no record: a
// named pipe, which an open would wait on, does not hang the start, and
// a link named like a record is not followed to the .env it names; both
// are left where they are.
func TestRecordsThatAreNoFilesAreLeftAlone(t *testing.T) {
	root, watch := t.TempDir(), t.TempDir()
	env := filepath.Join(root, ".env")
	if err := os.WriteFile(env, []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(elsewhere, []byte(`{"paths": [`+"\""+env+"\""+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	pipe := fifotest.Make(t, filepath.Join(watch, "1-pipe.json"))
	link := filepath.Join(watch, "2-link.json")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	fifotest.Returns(t, "MoveAsideWatched", func() { MoveAsideWatched(watch, nil) })
	if _, err := os.Stat(env); err != nil {
		t.Errorf("a link's record was followed: the .env was moved (%v)", err)
	}
	for _, p := range []string{pipe, link} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
