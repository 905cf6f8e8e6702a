package sandbox

import (
	"os/exec"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// Wrap confines cmd, built by a test with os/exec, as the door has
// Confine confine a command it starts.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	return s.Confine(spawn.Adopt(spawn.UserCommand{What: "a test"}, cmd))
}
