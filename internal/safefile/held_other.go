//go:build !windows

package safefile

// heldOpen is false: only Windows keeps a file another program holds
// open from being replaced.
func heldOpen(string, error) bool { return false }
