//go:build !linux

package startup

func releaseCodePages() {}
