package agent

import "syscall"

// Winsock's errors for a connection that could not be made, which
// Windows words in sentences of its own ("No connection could be made
// because the target machine actively refused it.", or Wine's
// "Connection refused."); the syscall package names few of them.
const (
	wsaeNetUnreach  = syscall.Errno(10051) // WSAENETUNREACH
	wsaeConnAborted = syscall.WSAECONNABORTED
	wsaeConnReset   = syscall.WSAECONNRESET
	wsaeTimedOut    = syscall.Errno(10060) // WSAETIMEDOUT
	wsaeConnRefused = syscall.Errno(10061) // WSAECONNREFUSED
	wsaeHostUnreach = syscall.Errno(10065) // WSAEHOSTUNREACH
)

// errnoWords is what Linux and macOS say for errno, where Windows says it
// otherwise, so that the user reads the same words on every system; ""
// for the errors whose Windows wording is kept.
func errnoWords(errno syscall.Errno) string {
	switch errno {
	case wsaeConnRefused:
		return "connection refused"
	case wsaeConnReset:
		return "connection reset by peer"
	case wsaeConnAborted:
		return "software caused connection abort"
	case wsaeTimedOut:
		return "connection timed out"
	case wsaeNetUnreach:
		return "network is unreachable"
	case wsaeHostUnreach:
		return "no route to host"
	}
	return ""
}
