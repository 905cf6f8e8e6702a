//go:build !unix

package sessionstore

// Windows has neither FIFOs nor O_NONBLOCK on files; the Lstat before
// opening and the fstat after are the checks there.
const openFlags = 0
