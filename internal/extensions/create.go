package extensions

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// templates are Gemini CLI 0.61's extension templates (bundle/examples).
//
//go:embed templates
var templates embed.FS

// Templates are the names `new` takes, as Gemini CLI lists its examples.
func Templates() []string {
	entries, _ := templates.ReadDir("templates")
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// New creates an extension at path as `gemini extensions new` does: from
// template (one of Templates), or, when template is "", a directory with
// a gemini-extension.json naming it after path's last element, version
// 1.0.0. path must not exist.
func New(path, template string) error {
	if template != "" && !slices.Contains(Templates(), template) {
		return fmt.Errorf("Invalid values: template %q is not one of %s", template, strings.Join(Templates(), ", "))
	}
	if exists(path) {
		return fmt.Errorf("Path already exists: %s", path)
	}
	if err := os.MkdirAll(path, 0o777); err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if template == "" {
		data, err := marshalIndent(struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}{filepath.Base(path), "1.0.0"})
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(path, ManifestFile), data, 0o666)
	}
	root := "templates/" + template
	return fs.WalkDir(templates, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(path, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(name, root), "/")))
		if d.IsDir() {
			return os.MkdirAll(target, 0o777)
		}
		data, err := templates.ReadFile(name)
		if err != nil {
			return err
		}
		// 0o666 less the umask: what npm installs them with, and so
		// what Gemini CLI's copy gives.
		if err := os.WriteFile(target, data, 0o666); err != nil {
			return fmt.Errorf("creating %s: %w", target, err)
		}
		return nil
	})
}

// semverRe is what node-semver's valid() accepts, leading "v" or "=" and
// blanks included.
var semverRe = lazyregexp.New(`^[v=\s]*(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][a-zA-Z0-9-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][a-zA-Z0-9-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$`)

// Validation is what `gemini extensions validate` finds in an extension.
type Validation struct {
	Warnings []string
	Errors   []string
}

// Validate checks the extension in dir as `gemini extensions validate`
// does: its manifest loads (an error when not), its context files are in
// it and exist, its version is semver (a warning when not).
func (m Manager) Validate(dir string) (Validation, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Validation{}, err
	}
	c, err := m.loadConfig(abs)
	if err != nil {
		return Validation{}, err
	}
	var v Validation
	if raw, ok := c.raw["contextFileName"]; ok && raw != nil && raw != "" {
		names, ok := raw.([]any)
		if !ok {
			names = []any{raw}
		}
		var missing []string
		for _, n := range names {
			resolved, why := checkContextFile(n, abs)
			if why != "" {
				v.Errors = append(v.Errors, fmt.Sprintf(`Invalid context file path: "%s". %s`, jsString(n), why))
				continue
			}
			if !exists(resolved) {
				missing = append(missing, jsString(n))
			}
		}
		if len(missing) > 0 {
			v.Errors = append(v.Errors, "The following context files referenced in gemini-extension.json are missing: "+strings.Join(missing, ","))
		}
	}
	if !semverRe.MatchString(jsString(c.raw["version"])) {
		v.Warnings = append(v.Warnings, fmt.Sprintf("Warning: Version '%s' does not appear to be standard semver (e.g., 1.0.0).", jsString(c.raw["version"])))
	}
	return v, nil
}

// checkContextFile is Gemini CLI's validateContextFilePath: the path of
// the context file name names in root, or why it is not allowed.
func checkContextFile(name any, root string) (string, string) {
	s, ok := name.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", "expected a non-empty string."
	}
	if strings.Contains(s, "\x00") {
		return "", "null bytes are not allowed."
	}
	if filepath.IsAbs(s) || isWindowsAbs(s) {
		return "", "Absolute paths are not allowed."
	}
	decoded, err := url.PathUnescape(s)
	if err != nil {
		decoded = s
	}
	if strings.Contains(s, "..") || strings.Contains(decoded, "..") {
		return "", `Relative parent directory references ("..") are not allowed.`
	}
	path := filepath.Join(root, s)
	if rel, err := filepath.Rel(root, path); err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Sprintf(`escapes the extension directory boundary ("%s").`, root)
	}
	return path, ""
}

var windowsAbs = lazyregexp.New(`^([a-zA-Z]:[\\/]|[\\/]{2})`)

func isWindowsAbs(s string) bool { return windowsAbs.MatchString(s) || strings.HasPrefix(s, `\`) }

// ErrValidation is Gemini CLI's last line when validation finds errors.
var ErrValidation = errors.New("Extension validation failed.")
