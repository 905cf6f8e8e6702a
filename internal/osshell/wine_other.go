//go:build !windows

package osshell

func underWine() bool { return false }
