package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/workspace"
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

// displayPath shows abs relative to the first root when it lies inside it,
// else absolute.
func displayPath(ws *workspace.Workspace, abs string) string {
	roots := ws.Roots()
	if len(roots) == 0 {
		return abs
	}
	rel, err := filepath.Rel(roots[0], abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
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
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}
