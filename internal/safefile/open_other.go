//go:build !unix

package safefile

// Windows has no FIFOs to block on.
const (
	openNonBlocking = 0
	openDirectory   = 0
)
