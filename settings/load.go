package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
)

// Getenv looks up an environment variable; "" when unset.
type Getenv func(string) string

// UserDir is the user's Gemini CLI directory, shared with Gemini CLI:
// $GEMINI_CLI_HOME/.gemini, else $HOME/.gemini; "" when neither is set.
func UserDir(getenv Getenv) string {
	home := getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = getenv("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// FileError is a settings file that could not be used, with where it
// went wrong when that is known.
type FileError struct {
	Path      string
	Line, Col int // 0 when the error has no position
	Err       error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("settings file %s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("settings file %s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// maxFileSize bounds a settings file.
const maxFileSize = 10 << 20

// Load reads the user's settings.json (in UserDir), then each root's
// .gemini/settings.json when the root is a trusted folder (trust.go), and
// merges them: objects key by key, the later file winning; an mcpServers
// entry is replaced whole, as Gemini CLI merges it. Comments and trailing
// commas are allowed, and $VAR, ${VAR} and ${VAR:-default} in strings are
// expanded from getenv (an unset variable without a default stays as
// written). Missing files are skipped. A file that cannot be read or
// parsed, or a root's file in an untrusted folder, is left out and reported
// in the returned error (FileErrors, joined); the settings hold the rest,
// so the error is a warning to show, not a reason to stop.
func Load(getenv Getenv, roots []string) (Settings, error) {
	merged := map[string]any{}
	var problems []error
	add := func(obj map[string]any, err error) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			problems = append(problems, err)
		default:
			merge(merged, expandEnv(obj, getenv).(map[string]any), true)
		}
	}
	userPath := ""
	if dir := UserDir(getenv); dir != "" {
		userPath = filepath.Join(dir, "settings.json")
		add(readSettingsFile(userPath))
	}
	// Trust is decided by the user's settings alone, before any workspace's.
	trust, err := loadTrust(getenv, merged)
	if err != nil {
		problems = append(problems, err)
	}
	seen := map[string]bool{userPath: true} // a root that is the home directory
	for _, root := range roots {
		path := filepath.Join(root, ".gemini", "settings.json")
		if seen[path] {
			continue
		}
		seen[path] = true
		obj, err := readSettingsFile(path)
		if err == nil {
			if why := trust.check(root); why != nil {
				err = &FileError{Path: path, Err: why}
			}
		}
		add(obj, err)
	}
	var s Settings
	if err := fromMap(merged, &s); err != nil {
		// Every file decoded on its own, so the merge cannot fail; this is a bug.
		return Settings{}, fmt.Errorf("decoding merged settings: %w", err)
	}
	return s, errors.Join(problems...)
}

// readSettingsFile reads one settings file, checked against Settings so
// that a value of the wrong type is blamed on its file.
func readSettingsFile(path string) (map[string]any, error) {
	obj, err := readJSONObject(path)
	if err != nil {
		return nil, err
	}
	if err := fromMap(obj, &Settings{}); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return obj, nil
}

// parseObject parses src, JSON with comments, as an object; errors carry
// the file's path and the position in it.
func parseObject(path string, src []byte) (map[string]any, error) {
	clean := stripJSONC(src)
	if len(bytes.TrimSpace(clean)) == 0 {
		return map[string]any{}, nil // an empty file, as Gemini CLI allows
	}
	var obj map[string]any
	if err := json.Unmarshal(clean, &obj); err != nil {
		fe := &FileError{Path: path, Err: err}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			// Offset is just past the offending byte.
			fe.Line, fe.Col = position(src, syntax.Offset-1)
		case errors.As(err, &typ):
			fe.Line, fe.Col = position(src, typ.Offset)
			fe.Err = errors.New("the file must hold a JSON object")
		}
		return nil, fe
	}
	return obj, nil
}

// fromMap decodes a JSON object into v.
func fromMap(obj map[string]any, v any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	err = json.Unmarshal(data, v)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return fmt.Errorf("%s must be %s, not %s", typ.Field, jsonTypeName(typ.Type.Kind().String()), typ.Value)
	}
	return err
}

func jsonTypeName(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return goKind
}

// merge merges src, a later file's object, into dst: objects key by key,
// recursively, and anything else replaced. The one exception is Gemini
// CLI's (settingsSchema.ts): mcpServers entries merge by name, each server
// replaced whole, so a workspace's server never inherits half of the user's.
func merge(dst, src map[string]any, top bool) {
	for key, val := range src {
		srcObj, srcIsObj := val.(map[string]any)
		dstObj, dstIsObj := dst[key].(map[string]any)
		switch {
		case !srcIsObj || !dstIsObj:
			dst[key] = val
		case top && key == "mcpServers":
			for name, server := range srcObj {
				dstObj[name] = server
			}
		default:
			merge(dstObj, srcObj, false)
		}
	}
}

// envVar matches $VAR, ${VAR} and ${VAR:-default}, as Gemini CLI's
// envVarResolver.ts does.
var envVar = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// expandEnv expands variables in every string of v, a decoded JSON value.
func expandEnv(v any, getenv Getenv) any {
	switch v := v.(type) {
	case string:
		return expandString(v, getenv)
	case map[string]any:
		for k, e := range v {
			v[k] = expandEnv(e, getenv)
		}
	case []any:
		for i, e := range v {
			v[i] = expandEnv(e, getenv)
		}
	}
	return v
}

// expandString replaces each variable with its value, else its default,
// else leaves it as written.
func expandString(s string, getenv Getenv) string {
	var b strings.Builder
	last := 0
	for _, m := range envVar.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		var name string
		if m[2] >= 0 {
			name = s[m[2]:m[3]] // $VAR
		} else {
			name = s[m[4]:m[5]] // ${VAR...}
		}
		switch val := getenv(name); {
		case val != "":
			b.WriteString(val)
		case m[6] >= 0:
			b.WriteString(s[m[6]:m[7]])
		default:
			b.WriteString(s[m[0]:m[1]])
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
