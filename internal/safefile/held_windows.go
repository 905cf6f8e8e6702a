package safefile

import (
	"errors"
	"syscall"
)

// heldOpen reports whether err, Windows's refusal of a rename over the
// file path, is because another program holds the file open without
// letting it be deleted. Windows says that with ERROR_ACCESS_DENIED, as
// it does for a read-only file or a directory in the way; an open that
// asks for the right to delete the file, sharing everything, tells them
// apart: only a held file refuses it, with a sharing violation.
func heldOpen(path string, err error) bool {
	if !errors.Is(err, syscall.ERROR_ACCESS_DENIED) {
		return false
	}
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return false
	}
	const deleteAccess = 0x00010000 // DELETE
	h, err := syscall.CreateFile(name, deleteAccess,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE,
		nil, syscall.OPEN_EXISTING, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return errors.Is(err, errorSharingViolation) || errors.Is(err, errorLockViolation)
	}
	syscall.CloseHandle(h)
	return false
}
