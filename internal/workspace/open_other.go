//go:build !unix

package workspace

// Windows has neither FIFOs nor O_NONBLOCK on files; the stat before
// opening and the fstat after are the checks there.
const (
	openReadFlags = 0
	openDirFlags  = 0
)
