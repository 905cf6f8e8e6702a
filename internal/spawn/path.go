package spawn

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// InRoots reports whether path, links followed, lies in the rules'
// roots: a program found there is the workspace's own.
func (d *Door) InRoots(path string) bool { return inRoots(d.roots(""), path) }

// roots are the directories whose programs are the workspace's: the
// rules' roots and dir, the directory a helper or language server runs
// in (its Cmd's Dir, "" for none). A nil door knows no roots, so where a
// caller runs git in the workspace (/setup-github, a clone) that
// directory is all it has to tell the workspace by. A filesystem's root
// as dir counts for nothing: it would hold every program there is.
func (d *Door) roots(dir string) []string {
	var roots []string
	if d != nil && d.rules.Roots != nil {
		roots = d.rules.Roots()
	}
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil && filepath.Dir(abs) != abs {
			roots = append(roots, abs)
		}
	}
	return roots
}

// inRoots reports whether path, links followed, lies in one of roots.
func inRoots(roots []string, path string) bool {
	if path == "" {
		return false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	for _, root := range roots {
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if within(root, real) || within(root, path) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// LookPath finds the program name on the PATH the door gives helpers and
// language servers: PATH without the workspace's directories (nor a
// relative one), so that what it finds is not the workspace's. A name
// with a separator is checked as it is.
func (d *Door) LookPath(name string) (string, error) { return lookPath(d.roots(""), name) }

func lookPath(roots []string, name string) (string, error) {
	if strings.ContainsAny(name, `/\`) {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(pathOutside(roots, os.Getenv("PATH"))) {
		if path, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return path, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// pathOutside is the list of directories list without those in roots,
// links followed, and the relative ones.
func pathOutside(roots []string, list string) string {
	var kept []string
	for _, dir := range filepath.SplitList(list) {
		if dir != "" && filepath.IsAbs(dir) && !inRoots(roots, dir) {
			kept = append(kept, dir)
		}
	}
	return strings.Join(kept, string(filepath.ListSeparator))
}

// withPath is env (the process's when nil) with PATH as pathOutside
// leaves it.
func withPath(roots []string, env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	list := ""
	for _, kv := range env {
		if name, value, _ := strings.Cut(kv, "="); strings.EqualFold(name, "PATH") {
			list = value // the last one wins, as exec's dedupEnv keeps it
		} else {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+pathOutside(roots, list))
}

// LookPath finds the program name as the door will, on PATH; a name
// with a separator is checked as it is. A program found through a
// relative PATH entry is refused (ErrDot), as Go refuses it.
func LookPath(name string) (string, error) { return exec.LookPath(name) }

// The errors a started program's end can be, as os/exec's.
type ExitError = exec.ExitError

var (
	// ErrNotFound is LookPath's for a program not on PATH.
	ErrNotFound = exec.ErrNotFound
	// ErrWaitDelay is Wait's when the program exited but its output was
	// still held open after WaitDelay.
	ErrWaitDelay = exec.ErrWaitDelay
)

// IsNotFound reports whether err says a program was not found.
func IsNotFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist)
}
