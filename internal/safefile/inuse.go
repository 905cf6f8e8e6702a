package safefile

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
)

// Windows's errors for a file another program holds open (or has locked,
// or mapped) in a way that forbids replacing it: a program that opened it
// without FILE_SHARE_DELETE, as many editors and Office do.
const (
	errorSharingViolation = syscall.Errno(32)   // ERROR_SHARING_VIOLATION
	errorLockViolation    = syscall.Errno(33)   // ERROR_LOCK_VIOLATION
	errorUserMappedFile   = syscall.Errno(1224) // ERROR_USER_MAPPED_FILE
)

// ErrInUse is why a file could not be replaced on Windows: another
// program holds it open. The file is left as it was.
var ErrInUse = errors.New("another program has the file open")

// replaceError is err, from replacing the file path, saying what to do
// when another program holds the file (inUseOn, heldOpen); else err as it
// is.
func replaceError(path string, err error) error {
	if !inUseOn(runtime.GOOS, err) && !heldOpen(path, err) {
		return err
	}
	return &inUseError{path: path, err: err}
}

// inUseOn reports whether err, on goos, says another program holds the
// file open. The numbers mean other things elsewhere (32 is EPIPE on
// Linux), so only Windows's count.
func inUseOn(goos string, err error) bool {
	var errno syscall.Errno
	if goos != "windows" || !errors.As(err, &errno) {
		return false
	}
	return errno == errorSharingViolation || errno == errorLockViolation || errno == errorUserMappedFile
}

// inUseError names the file, says it is unchanged and what to do; it
// matches ErrInUse and the system's error.
type inUseError struct {
	path string
	err  error
}

func (e *inUseError) Error() string {
	return fmt.Sprintf("%s is open in another program, which keeps it from being replaced; the file is unchanged: close it there (or wait until that program is done with it) and try again (%v)", e.path, e.err)
}

func (e *inUseError) Unwrap() []error { return []error{ErrInUse, e.err} }
