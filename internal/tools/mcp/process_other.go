//go:build !unix && !windows

package mcp

import "os/exec"

// Without process groups only the server process itself is ended, by the
// SDK's CommandTransport.
func ownGroup(*exec.Cmd) {}

func killGroup(int) {}

// descendants are none: where there are no process groups, what a
// server started is not known.
type descendants struct{}

func holdDescendants(*exec.Cmd) descendants { return descendants{} }

func (descendants) kill() {}
