package safefile

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A rename Windows refuses because another program holds the file is
// told as such, naming the file; the same numbers elsewhere mean other
// things and are left alone.
func TestInUseOn(t *testing.T) {
	rename := func(errno syscall.Errno) error {
		return &os.LinkError{Op: "renameat", Old: ".a.txt.1234.tmp", New: "a.txt", Err: errno}
	}
	for _, tc := range []struct {
		goos string
		err  error
		want bool
	}{
		{"windows", rename(32), true},   // ERROR_SHARING_VIOLATION
		{"windows", rename(33), true},   // ERROR_LOCK_VIOLATION
		{"windows", rename(1224), true}, // ERROR_USER_MAPPED_FILE
		{"windows", rename(5), false},   // ERROR_ACCESS_DENIED: a read-only file, a directory
		{"linux", rename(32), false},    // EPIPE
		{"windows", errors.New("other"), false},
		{"windows", nil, false},
	} {
		if got := inUseOn(tc.goos, tc.err); got != tc.want {
			t.Errorf("inUseOn(%s, %v) = %v, want %v", tc.goos, tc.err, got, tc.want)
		}
	}

	err := &inUseError{path: `C:\repo\a.txt`, err: rename(32)}
	if !errors.Is(err, ErrInUse) || !errors.Is(err, syscall.Errno(32)) {
		t.Errorf("%v: want it to match ErrInUse and the system's error", err)
	}
	for _, want := range []string{`C:\repo\a.txt`, "open in another program", "unchanged", "close it", "try again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
