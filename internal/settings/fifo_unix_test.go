//go:build unix

package settings

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// A FIFO in the place of any settings layer (the system defaults and
// settings, the user's, a trusted workspace's), of trustedFolders.json or
// of a .env file does not block: each is named, and the rest is read.
func TestLoadSkipsFIFOs(t *testing.T) {
	home, root, system := t.TempDir(), t.TempDir(), t.TempDir()
	fifos := []string{
		fifotest.Make(t, filepath.Join(home, ".gemini", "settings.json")),
		fifotest.Make(t, filepath.Join(root, ".gemini", "settings.json")),
		fifotest.Make(t, filepath.Join(system, "settings.json")),
		fifotest.Make(t, filepath.Join(system, "system-defaults.json")),
		fifotest.Make(t, filepath.Join(home, ".gemini", "trustedFolders.json")),
	}
	getenv := env(map[string]string{
		"HOME": home, "USERPROFILE": home,
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(system, "settings.json"),
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": filepath.Join(system, "system-defaults.json"),
	})
	var s Settings
	var err error
	fifotest.Returns(t, "loading settings", func() { s, err = load(getenv, []string{root}) })
	if s.Model.Name != "" {
		t.Errorf("model %q from nowhere", s.Model.Name)
	}
	for _, fifo := range fifos {
		if !fifotest.Named(errors.Join(err).Error(), fifo) {
			t.Errorf("%s not named as a named pipe: %v", fifo, err)
		}
	}

	// The .env file.
	dotenv := fifotest.Make(t, filepath.Join(root, ".env"))
	fifotest.Returns(t, "loading .env", func() {
		_, _, err = LoadDotenv(func(k string) (string, bool) {
			return map[string]string{"HOME": home, "USERPROFILE": home}[k], k == "HOME"
		}, DotenvOptions{Dir: root, Trusted: true})
	})
	if err == nil || !fifotest.Named(err.Error(), dotenv) {
		t.Errorf("LoadDotenv of a FIFO = %v, want it named", err)
	}

	// /skills enable editing a FIFO settings.json.
	fifotest.Returns(t, "editing a FIFO settings.json", func() {
		err = EditSkillsDisabled(t.Context(), fifos[0], func(old []string) []string { return old })
	})
	if err == nil || !fifotest.Named(err.Error(), fifos[0]) {
		t.Errorf("EditSkillsDisabled of a FIFO = %v, want it named", err)
	}
	if info, _ := os.Lstat(fifos[0]); info.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}
