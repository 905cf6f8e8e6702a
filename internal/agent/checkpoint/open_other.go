//go:build !unix

package checkpoint

const openFlags = 0
