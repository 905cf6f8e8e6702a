//go:build !linux

package sandbox

// landlockScopeABI and landlockABI: Landlock is Linux's.
const landlockScopeABI = 6

func landlockABI() int { return 0 }
