//go:build unix

package extensions

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// A FIFO in the place of any file of an extension's that gemini-ls reads
// (its manifest, install metadata, .env, hooks), of the enablement file,
// or of the extensions directory itself, does not block loading: it is
// named, and the other extensions load.
func TestLoadSkipsFIFOs(t *testing.T) {
	userDir, extDir := home(t)
	manifest := func(name string) string { return `{"name": "` + name + `", "version": "1.0.0"}` }
	write(t, filepath.Join(extDir, "good", ManifestFile), manifest("good"))
	write(t, filepath.Join(extDir, "meta", ManifestFile), manifest("meta"))
	write(t, filepath.Join(extDir, "env", ManifestFile), manifest("env"))
	fifos := []string{
		fifotest.Make(t, filepath.Join(extDir, "manifest", ManifestFile)),
		fifotest.Make(t, filepath.Join(extDir, "meta", InstallMetadataFile)),
		fifotest.Make(t, filepath.Join(extDir, "env", SettingsFile)),
		fifotest.Make(t, filepath.Join(extDir, EnablementFile)),
	}
	hooks := fifotest.Make(t, filepath.Join(extDir, "good", "hooks", "hooks.json"))

	var got Loaded
	var hooksErr error
	fifotest.Returns(t, "loading extensions", func() {
		got = Load(Config{UserDir: userDir, Workspace: t.TempDir()})
		if good := got.Active(); len(good) == 1 {
			_, hooksErr = good[0].Hooks()
		}
	})
	if n := names(got.Active()); len(n) != 1 || n[0] != "good" {
		t.Fatalf("active extensions %v, want good alone (errors %v)", n, got.Errs)
	}
	said := errors.Join(got.Errs...).Error()
	for _, fifo := range fifos {
		if !fifotest.Named(said, fifo) {
			t.Errorf("%s not named as a named pipe; errors:\n%s", fifo, said)
		}
	}
	if hooksErr == nil || !fifotest.Named(hooksErr.Error(), hooks) {
		t.Errorf("Hooks of a FIFO hooks.json = %v, want it named", hooksErr)
	}

	// The extensions directory itself a FIFO.
	other := filepath.Join(t.TempDir(), ".gemini")
	fifotest.Make(t, Dir(other))
	fifotest.Returns(t, "loading a FIFO extensions directory", func() { got = Load(Config{UserDir: other}) })
	if len(got.All) != 0 || !fifotest.Named(errors.Join(got.Errs...).Error(), Dir(other)) {
		t.Errorf("a FIFO extensions directory: %v, %v", names(got.All), got.Errs)
	}
}
