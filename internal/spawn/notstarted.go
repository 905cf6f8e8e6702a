package spawn

import (
	"errors"
	"io/fs"
	"os/exec"
)

// NotStarted reports, for an error that some wrapping of a Start
// returned, the program that could not be started and why (not found, not
// executable), when that is what happened. exec's own message quotes the
// program's name as Go source, which doubles every backslash of a Windows
// path; a message built from name and cause names it as the user wrote it.
func NotStarted(err error) (name string, cause error, ok bool) {
	var e *exec.Error
	if errors.As(err, &e) {
		return e.Name, e.Err, true
	}
	// Windows: a path with an extension is not looked for, and the
	// process's creation fails.
	var p *fs.PathError
	if errors.As(err, &p) && p.Op == "fork/exec" {
		return p.Path, p.Err, true
	}
	return "", nil, false
}
