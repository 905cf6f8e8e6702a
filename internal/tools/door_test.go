package tools

import (
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// doorOf is a session's door whose sandbox is sb (nil: none), as setup
// makes it.
func doorOf(sb *sandbox.Sandbox) *spawn.Door { return spawn.NewDoor(spawn.Rules{Sandbox: sb}) }
