//go:build !windows

package settings

// HomeVariable is the variable SystemHome reads, for messages that say
// why there is no home.
const HomeVariable = "HOME"
