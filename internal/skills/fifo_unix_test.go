//go:build unix

package skills_test

import (
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/fifotest"
	"github.com/gemini-ls/gemini-ls/internal/skills"
)

// A FIFO named SKILL.md, in the user's, a workspace's or an extension's
// skills, does not block discovery: it is skipped and named, and the
// other skills load. So does a FIFO where a skills directory belongs.
func TestDiscoverSkipsFIFOs(t *testing.T) {
	user, root, ext := filepath.Join(t.TempDir(), ".gemini"), t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(user, "skills"), "good", skillMD("good", "works", "body"))
	fifos := []string{
		fifotest.Make(t, filepath.Join(user, "skills", "pipe", skills.FileName)),
		fifotest.Make(t, filepath.Join(root, ".gemini", "skills", skills.FileName)),
		fifotest.Make(t, filepath.Join(ext, "skills", "x", skills.FileName)),
	}
	fifos = append(fifos, fifotest.Make(t, filepath.Join(root, ".agents", "skills")))
	var c *skills.Catalog
	var problems []skills.Problem
	fifotest.Returns(t, "discovering skills", func() {
		c, problems = skills.Discover(skills.Config{
			UserDir:    user,
			Roots:      []string{root},
			Trusted:    func(string) bool { return true },
			Extensions: []skills.ExtensionDir{{Extension: "e", Dir: filepath.Join(ext, "skills")}},
		})
	})
	if all := c.All(); len(all) != 1 || all[0].Name != "good" {
		t.Errorf("skills %v, want good alone", all)
	}
	var said string
	for _, p := range problems {
		said += p.Error() + "\n"
	}
	for _, fifo := range fifos {
		if !fifotest.Named(said, fifo) {
			t.Errorf("%s not named as a named pipe; problems:\n%s", fifo, said)
		}
	}
}
