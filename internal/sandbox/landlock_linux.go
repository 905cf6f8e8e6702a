package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockScopeABI is the first Landlock ABI that scopes abstract Unix
// sockets (Linux 6.12).
const landlockScopeABI = 6

// landlockABI is the kernel's Landlock ABI, 0 where it has none.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// abstractSocketScope is a Landlock ruleset, made once, that confines a
// thread that enters it (enterScope), and every process it starts from
// then on, to the abstract Unix sockets made inside its domain: with the
// network on, the sandbox shares the host's network namespace, where the
// host's abstract sockets live (X11's, through which a command could
// type into the user's terminal, D-Bus's), and a named socket lets
// socket(AF_UNIX) through the seccomp filter. It is -1 where the kernel
// cannot scope (ABI < 6).
func abstractSocketScope() (int, error) {
	if landlockABI() < landlockScopeABI {
		return -1, nil
	}
	attr := unix.LandlockRulesetAttr{Scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}
	// ABI 6's fields alone: a kernel of that ABI knows no more.
	size := unsafe.Offsetof(attr.Quiet_access_fs)
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return -1, fmt.Errorf("making the scope of the commands' abstract Unix sockets: %w", errno)
	}
	return int(fd), nil // close-on-exec, as Landlock makes it
}

// enterScope confines the calling thread to the ruleset scope
// (abstractSocketScope); nothing when it is -1.
func enterScope(scope int) error {
	if scope < 0 {
		return nil
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(scope), 0, 0); errno != 0 {
		return fmt.Errorf("scoping the command's abstract Unix sockets: %w", errno)
	}
	return nil
}
