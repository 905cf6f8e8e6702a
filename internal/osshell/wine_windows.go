package osshell

import "syscall"

// underWine says whether this Windows is Wine: its ntdll exports
// wine_get_version, which no Windows ntdll does (Wine's own documented
// way to tell).
func underWine() bool {
	ntdll, err := syscall.LoadDLL("ntdll.dll")
	if err != nil {
		return false
	}
	defer ntdll.Release()
	_, err = ntdll.FindProc("wine_get_version")
	return err == nil
}
