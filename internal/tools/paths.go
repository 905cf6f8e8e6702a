package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// resolvePath resolves the path parameter param against the workspace,
// with an error the model can act on.
func resolvePath(ws *workspace.Workspace, param, path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", fmt.Errorf("The '%s' parameter must be non-empty.", param)
	}
	abs, err := ws.Resolve(path)
	if errors.Is(err, workspace.ErrOutsideRoots) {
		// err names the path, where it resolves and the roots.
		return "", fmt.Errorf("Path must be within one of the workspace directories: %v", err)
	}
	if err != nil {
		return "", fmt.Errorf("Cannot resolve path %q: %v", path, err)
	}
	return abs, nil
}

// absolutePattern is pattern, a glob pattern, as an absolute one when it
// is absolute: on Windows a pattern rooted on no drive (\src\*.go,
// /src/*.go) is absolute too, on dir's drive, as Node's path.isAbsolute
// and path.resolve have it, and as the workspace reads such a path;
// filepath.IsAbs would call it relative. ok is false for a relative
// pattern.
func absolutePattern(pattern, dir string) (abs string, ok bool) {
	if runtime.GOOS == "windows" && len(pattern) > 0 && isSlash(pattern[0]) && (len(pattern) == 1 || !isSlash(pattern[1])) {
		pattern = filepath.VolumeName(dir) + pattern
	}
	return pattern, filepath.IsAbs(pattern)
}

func isSlash(c byte) bool { return c == '/' || c == filepath.Separator }

// climbsOut reports whether rel, a relative path, leaves the directory it
// is relative to.
func climbsOut(rel string) bool {
	rel = filepath.ToSlash(rel)
	return rel == ".." || strings.HasPrefix(rel, "../")
}

// defaultDir is the directory searches start from when no path is given.
func defaultDir(ws *workspace.Workspace) (string, error) {
	roots := ws.Roots()
	if len(roots) == 0 {
		return "", errors.New("The workspace has no root directory.")
	}
	return roots[0], nil
}

// relSlash is path relative to dir with forward slashes, for glob matching
// and display.
func relSlash(dir, path string) string {
	if rest, ok := strings.CutPrefix(path, dir); ok && strings.HasPrefix(rest, string(filepath.Separator)) && dir != "" {
		return filepath.ToSlash(rest[1:]) // the common case in a walk, without Rel's cleaning
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// omittedNote says what a listing or walk left out and why, for the end of
// a tool's output, or "" when it left out nothing. extra are further
// skipped things the tool counted itself ("2 files over 8.0 MiB").
func omittedNote(o workspace.Omitted, extra ...string) string {
	var skipped []string
	add := func(n int, one, many string) {
		if n == 1 {
			skipped = append(skipped, "1 "+one)
		} else if n > 1 {
			skipped = append(skipped, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(o.Outside, "symlink leading outside the workspace", "symlinks leading outside the workspace")
	add(o.Special, "special file (device, FIFO or socket)", "special files (devices, FIFOs or sockets)")
	add(o.Broken, "broken symlink or unreadable entry", "broken symlinks or unreadable entries")
	add(o.Unreadable, "unreadable directory", "unreadable directories")
	skipped = append(skipped, extra...)

	if len(skipped) == 0 {
		return ""
	}
	return "(skipped " + strings.Join(skipped, ", ") + ")"
}
