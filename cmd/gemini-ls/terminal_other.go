//go:build !linux

package main

import "io"

// isTerminal is false where gemini-ls cannot tell: it serves, as always.
func isTerminal(io.Reader) bool { return false }
