package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// maxSystemMD bounds a GEMINI_SYSTEM_MD file: a system prompt, not data.
const maxSystemMD = 1 << 20

// systemPrompt is what GEMINI_SYSTEM_MD and GEMINI_WRITE_SYSTEM_MD say
// of the system prompt, resolved as 0.61 resolves them.
type systemPrompt struct {
	// override is the user's prompt, which replaces the built-in one,
	// when overridden.
	override   string
	overridden bool
	// writeTo is where each system prompt is written out, "" for nowhere.
	writeTo string
	// withheld are the variables left unused because their file is in a
	// workspace root that is not trusted.
	withheld []withheldVar
}

// withheldVar is a system prompt variable left unused, and its file.
type withheldVar struct{ name, path string }

// loadSystemPrompt reads the variables with getenv (the environment and
// a trusted folder's .env), relative paths and true/1 resolved in dir,
// the project (0.61's working directory). A GEMINI_SYSTEM_MD file that
// is missing is an error, in 0.61's words: 0.61 does not start without it.
// A file in one of the untrusted roots (the default .gemini/system.md of
// an untrusted project) is neither read nor written, unlike 0.61's: the
// repository would be choosing the model's instructions.
func loadSystemPrompt(getenv settings.Getenv, dir string, untrusted []string) (systemPrompt, error) {
	var sp systemPrompt
	defaultPath := configfiles.In(dir, "system.md")
	inUntrusted := func(name, path string) bool {
		if !insideAny(untrusted, path) {
			return false
		}
		sp.withheld = append(sp.withheld, withheldVar{name, path})
		return true
	}
	if path, on := resolvePathVar(getenv("GEMINI_SYSTEM_MD"), getenv, dir, defaultPath); on && !inUntrusted("GEMINI_SYSTEM_MD", path) {
		data, err := safefile.Read(path, maxSystemMD)
		if errors.Is(err, fs.ErrNotExist) {
			return sp, fmt.Errorf("missing system prompt file '%s'", path)
		}
		if err != nil {
			return sp, fmt.Errorf("reading the system prompt file (GEMINI_SYSTEM_MD): %w", err)
		}
		sp.override, sp.overridden = string(data), true
	}
	if path, on := resolvePathVar(getenv("GEMINI_WRITE_SYSTEM_MD"), getenv, dir, defaultPath); on && !inUntrusted("GEMINI_WRITE_SYSTEM_MD", path) {
		sp.writeTo = path
	}
	return sp, nil
}

// insideAny reports whether path, or where its links lead, is in one of
// roots.
func insideAny(roots []string, path string) bool {
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		paths = append(paths, real)
	} else if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		paths = append(paths, filepath.Join(real, filepath.Base(path)))
	}
	for _, root := range roots {
		for _, p := range paths {
			if workspace.Within(root, p) {
				return true
			}
		}
	}
	return false
}

// resolvePathVar is 0.61's resolvePathFromEnv: "", 0 and false are off;
// 1 and true mean defaultPath; anything else is a path, one starting at
// the home (settings.ExpandHome) in it, a relative one in dir.
func resolvePathVar(value string, getenv settings.Getenv, dir, defaultPath string) (string, bool) {
	value = strings.TrimSpace(value)
	switch strings.ToLower(value) {
	case "", "0", "false":
		return "", false
	case "1", "true":
		return defaultPath, true
	}
	value, ok := settings.ExpandHome(getenv, value)
	if !ok {
		return "", false // 0.61: the home directory cannot be resolved, off
	}
	if !filepath.IsAbs(value) {
		value = filepath.Join(dir, value)
	}
	return filepath.Clean(value), true
}

// projectDir is the directory 0.61 would run in: the first root, else
// the working directory.
func projectDir(roots []string) string {
	if dir := firstRoot(roots); dir != "" {
		return dir
	}
	dir, _ := os.Getwd()
	return dir
}
