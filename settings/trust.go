package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// A workspace's settings can name commands to run (tools.discoveryCommand,
// MCP servers), so, as in Gemini CLI, they apply only in a folder the user
// trusts; a repository someone cloned runs nothing of its own by being
// opened. Trust is Gemini CLI's, read from the same places:
// GEMINI_CLI_TRUST_WORKSPACE=true or false decides outright; the user's
// "security": {"folderTrust": {"enabled": false}} trusts every folder;
// otherwise ~/.gemini/trustedFolders.json (or
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH) does, its longest matching rule winning:
// TRUST_FOLDER (that folder and below), TRUST_PARENT (the folder's parent
// and below) or DO_NOT_TRUST. A folder no rule covers is not trusted.

// Trust levels of trustedFolders.json.
const (
	TrustFolder = "TRUST_FOLDER"
	TrustParent = "TRUST_PARENT"
	DoNotTrust  = "DO_NOT_TRUST"
)

// folderTrust decides which workspace roots' settings apply.
type folderTrust struct {
	env      string            // GEMINI_CLI_TRUST_WORKSPACE
	disabled bool              // the user turned folder trust off
	rules    map[string]string // trustedFolders.json: path → level
	rulesAt  string            // where the rules came from
}

// loadTrust reads what decides trust; user is the user's settings object.
// A trustedFolders.json that cannot be read trusts nothing, and is reported.
func loadTrust(getenv Getenv, user map[string]any) (folderTrust, error) {
	ft := folderTrust{env: getenv("GEMINI_CLI_TRUST_WORKSPACE")}
	security, _ := user["security"].(map[string]any)
	folderTrustSetting, _ := security["folderTrust"].(map[string]any)
	if enabled, ok := folderTrustSetting["enabled"].(bool); ok && !enabled {
		ft.disabled = true
	}
	ft.rulesAt = getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if ft.rulesAt == "" {
		if dir := UserDir(getenv); dir != "" {
			ft.rulesAt = filepath.Join(dir, "trustedFolders.json")
		}
	}
	if ft.rulesAt == "" {
		return ft, nil
	}
	obj, err := readJSONObject(ft.rulesAt)
	if errors.Is(err, fs.ErrNotExist) {
		return ft, nil
	}
	if err != nil {
		return ft, err
	}
	ft.rules = map[string]string{}
	for path, level := range obj {
		if s, ok := level.(string); ok && (s == TrustFolder || s == TrustParent || s == DoNotTrust) {
			ft.rules[path] = s
		}
	}
	return ft, nil
}

// check returns nil when root is trusted, else why not, in words that say
// how to trust it.
func (ft folderTrust) check(root string) error {
	switch {
	case ft.env == "true", ft.disabled:
		return nil
	case ft.env == "false":
		return errors.New("not read: GEMINI_CLI_TRUST_WORKSPACE=false says the workspace is not trusted")
	}
	real := realPath(root)
	bestLen, best := -1, ""
	for rule, level := range ft.rules {
		effective := rule
		if level == TrustParent {
			effective = filepath.Dir(rule)
		}
		// The most specific rule wins: Gemini CLI compares the rules' lengths,
		// which it writes cleaned. On a tie, distrust wins.
		n := len(filepath.Clean(rule))
		if within(realPath(effective), real) && (n > bestLen || n == bestLen && level == DoNotTrust) {
			bestLen, best = n, level
		}
	}
	switch best {
	case TrustFolder, TrustParent:
		return nil
	case DoNotTrust:
		return fmt.Errorf("not read: %s marks the folder %s %s", ft.rulesAt, root, DoNotTrust)
	}
	return fmt.Errorf("not read: the folder %s is not trusted (as in Gemini CLI, a workspace's settings apply only in a trusted folder). "+
		"Trust it in Gemini CLI, add %q: %q to %s, or set GEMINI_CLI_TRUST_WORKSPACE=true", root, root, TrustFolder, ft.rulesAt)
}

// realPath is path with symlinks resolved, when it exists.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// within reports whether path is dir or inside it; case-insensitively
// where file systems usually are, as Gemini CLI compares.
func within(dir, path string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		dir, path = strings.ToLower(dir), strings.ToLower(path)
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readJSONObject reads a JSON-with-comments file holding an object.
func readJSONObject(path string) (map[string]any, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	// A FIFO or a device would block or never end: only regular files.
	if !info.Mode().IsRegular() {
		return nil, &FileError{Path: path, Err: errors.New("not a regular file")}
	}
	if info.Size() > maxFileSize {
		return nil, &FileError{Path: path, Err: fmt.Errorf("larger than %d MiB", maxFileSize>>20)}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return parseObject(path, src)
}
