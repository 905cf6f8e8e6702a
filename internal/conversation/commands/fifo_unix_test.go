//go:build unix

package commands

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
)

// A FIFO named *.toml, a symlink to one, and a FIFO where a commands
// directory belongs do not block loading: each is skipped and named, and
// the other commands load.
func TestLoadSkipsFIFOs(t *testing.T) {
	home, root, ext := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, Dir(home), map[string]string{"mine.toml": `prompt = "mine"`})
	write(t, ProjectDir(root), map[string]string{"team.toml": `prompt = "team"`})
	write(t, filepath.Join(ext, "commands"), map[string]string{"tool.toml": `prompt = "tool"`})
	fifos := []string{
		fifotest.Make(t, filepath.Join(Dir(home), "pipe.toml")),
		fifotest.Make(t, filepath.Join(ProjectDir(root), "ns", "pipe.toml")),
		fifotest.Make(t, filepath.Join(ext, "commands", "pipe.toml")),
	}
	link := filepath.Join(ProjectDir(root), "link.toml")
	if err := os.Symlink(fifos[1], link); err != nil {
		t.Fatal(err)
	}
	fifos = append(fifos, link)
	// A second extension whose commands directory is a FIFO.
	other := t.TempDir()
	fifos = append(fifos, fifotest.Make(t, filepath.Join(other, "commands")))

	var cmds []Custom
	var errs []error
	fifotest.Returns(t, "loading commands", func() {
		cmds, errs = Load(context.Background(), home, root, true)
		dirs := []ExtensionDir{{Name: "ext", Dir: filepath.Join(ext, "commands")}, {Name: "other", Dir: filepath.Join(other, "commands")}}
		extCmds, extErrs := LoadExtensions(context.Background(), dirs, cmds, nil, true)
		cmds, errs = append(cmds, extCmds...), append(errs, extErrs...)
	})
	got := names(cmds)
	for _, want := range []string{"mine", "team", "tool"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no %s among %v", want, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("commands %v, want mine, team and tool", got)
	}
	for _, fifo := range fifos {
		if !fifotest.Named(errors.Join(errs...).Error(), fifo) {
			t.Errorf("%s not named as a named pipe in %v", fifo, errs)
		}
	}
}
