//go:build !linux

package startup

func releaseExecutablePages() {}
