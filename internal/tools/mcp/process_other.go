//go:build !unix

package mcp

import "os/exec"

// Without process groups only the server process itself is ended, by the
// SDK's CommandTransport.
func ownGroup(*exec.Cmd) {}

func killGroup(int) {}
