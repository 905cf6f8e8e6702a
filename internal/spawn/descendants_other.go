//go:build !windows

package spawn

// Held are the processes a command started, held to be ended with it:
// none here, where its process group reaches them (Kill).
type Held struct{}

// HoldDescendants holds nothing: Kill of the group reaches what c
// started.
func (c *Cmd) HoldDescendants() Held { return Held{} }

// Kill does nothing: there is nothing held.
func (Held) Kill() {}
