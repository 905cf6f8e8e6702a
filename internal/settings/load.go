package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// Getenv looks up an environment variable; "" when unset.
type Getenv func(string) string

// UserDir is the user's Gemini CLI directory, shared with Gemini CLI:
// .gemini in Home; "" when there is no home.
func UserDir(getenv Getenv) string {
	home := Home(getenv)
	if home == "" {
		return ""
	}
	return configfiles.GeminiDir(home)
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

// SystemSettingsPath is Gemini CLI's system settings file, which overrides
// every other layer: $GEMINI_CLI_SYSTEM_SETTINGS_PATH, else settings.json
// in SystemConfigDir.
func SystemSettingsPath(getenv Getenv) string {
	if p := getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	return filepath.Join(SystemConfigDir(), "settings.json")
}

// SystemConfigDir is the administrator's Gemini CLI directory, as 0.61's
// Storage.getSystemConfigDir has it: the system settings and policies
// are in it. GEMINI_CLI_SYSTEM_SETTINGS_PATH moves the settings file
// only, not the directory.
func SystemConfigDir() string { return systemConfigDir(runtime.GOOS) }

func systemConfigDir(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/GeminiCli"
	case "windows":
		return `C:\ProgramData\gemini-cli`
	}
	return "/etc/gemini-cli"
}

// SystemDefaultsPath is Gemini CLI's system defaults file, the lowest
// layer: $GEMINI_CLI_SYSTEM_DEFAULTS_PATH, else system-defaults.json beside
// the system settings file.
func SystemDefaultsPath(getenv Getenv) string {
	if p := getenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH"); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(SystemSettingsPath(getenv)), "system-defaults.json")
}

// Load reads Gemini CLI's settings layers and merges them as Gemini CLI
// does (settings.ts), each later one winning: the schema's defaults, the
// system defaults (SystemDefaultsPath), the user's settings.json (in
// UserDir), each root's .gemini/settings.json when trust says the root is
// a trusted folder, in the roots' order, and last the system settings
// (SystemSettingsPath), which override all. Objects merge key by key; an
// mcpServers entry is replaced whole and tools.exclude lists are joined
// (merge.go). Comments and trailing commas are allowed, and $VAR, ${VAR}
// and ${VAR:-default} in strings are expanded from getenv (an unset
// variable without a default stays as written), within bounds (expand.go).
//
// The keys of the files used that gemini-ls does not read (Gemini CLI's
// that it does not implement, and keys of neither) are in UnreadKeys.
//
// The MCP servers of an Antigravity CLI user's files are added last,
// under the names settings.json does not give (antigravity.go): the
// user's always, a root's only in a trusted folder.
//
// Missing files are skipped. A file that cannot be read or parsed, holds a
// value of the wrong type, grows past the bounds when expanded, or is a
// root's in an untrusted folder (which is not even read) is left out; a
// value that has the right type but is not allowed (an unknown approval
// mode or auth type) is left out alone. Each is reported in the returned
// error (FileErrors, joined), never with a value a variable gave; the
// settings hold the rest, so the error is a warning to show, not a reason
// to stop.
func Load(getenv Getenv, roots []string, trust Trust) (Settings, error) {
	var problems []error
	var unread []Unread
	seen := map[string]bool{}
	given := map[string]string{}
	keys := newCatalogue()
	// adminElsewhere are the administrator's keys (adminOnlyKeys) that
	// files other than the system's set, each "key in file".
	var adminElsewhere []error
	var project []ProjectHooks
	// read reads one layer; nil when it is missing, unusable or read already.
	read := func(path string) map[string]any {
		if path == "" || seen[path] {
			return nil
		}
		seen[path] = true
		obj, errs := readLayer(path, getenv, given)
		problems = append(problems, errs...)
		if obj != nil {
			unread = append(unread, keys.unreadKeys(path, obj)...)
		}
		if path != SystemSettingsPath(getenv) {
			adminElsewhere = append(adminElsewhere, adminKeysIn(path, obj)...)
		}
		return obj
	}
	system := read(SystemSettingsPath(getenv))
	systemDefaults := read(SystemDefaultsPath(getenv))
	var user map[string]any
	if dir := UserDir(getenv); dir != "" {
		user = read(filepath.Join(dir, "settings.json"))
	}
	layers := []map[string]any{schemaDefaults(), systemDefaults, user}
	for _, root := range roots {
		path := configfiles.ProjectSettings(root)
		why := trust.Why(root)
		if why == nil || seen[path] {
			layer := read(path)
			layers = append(layers, layer)
			if h := layerHooks(layer); len(h) > 0 {
				project = append(project, ProjectHooks{Root: root, Hooks: h})
			}
			continue
		}
		// Not read, let alone expanded: nothing an untrusted folder
		// writes is used.
		seen[path] = true
		if _, err := os.Lstat(path); err == nil {
			problems = append(problems, &FileError{Path: path, Err: fmt.Errorf("not read (as in Gemini CLI, a workspace's settings apply only in a trusted folder): %w", why)})
		}
	}
	layers = append(layers, system)
	var s Settings
	if err := fromMap(mergeLayers(layers...), &s); err != nil {
		// Every file decoded on its own, so the merge cannot fail; this is a bug.
		return Settings{}, fmt.Errorf("decoding merged settings: %w", err)
	}
	// Admin policies and locks come from the administrator alone, as
	// Gemini CLI's docs have them: the system settings file.
	s.AdminPolicyPaths, s.Admin = nil, Admin{}
	if system != nil {
		var sys Settings
		if err := fromMap(system, &sys); err == nil {
			s.AdminPolicyPaths, s.Admin = sys.AdminPolicyPaths, sys.Admin
		}
	}
	problems = append(problems, adminElsewhere...)
	problems = append(problems, s.addAntigravityServers(getenv, roots, trust, given)...)
	s = s.withAdminLocks()
	s.given = given
	s.unread = unread
	s.projectHooks = project
	return s, errors.Join(problems...)
}

// adminOnlyKeys are the keys only the system settings file may set.
func adminOnlyKeys() []string { return []string{"admin", "adminPolicyPaths"} }

// adminKeysIn is an error for each of adminOnlyKeys that obj, the object
// of the settings file at path (not the system's), sets: it is ignored.
func adminKeysIn(path string, obj map[string]any) []error {
	var out []error
	for _, key := range adminOnlyKeys() {
		if _, set := obj[key]; set {
			out = append(out, &FileError{Path: path, Err: fmt.Errorf("%s is read only from the system settings file; ignored", key)})
		}
	}
	return out
}

// readLayer reads one settings file: nil and no error when it is missing;
// nil and the error when it cannot be used; else its object, variables
// expanded (each value a variable gave added to given), deprecated
// spellings migrated and bad values removed, with an error for each value
// removed.
func readLayer(path string, getenv Getenv, given map[string]string) (map[string]any, []error) {
	obj, err := readSettingsFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if fe, ok := errors.AsType[*FileError](err); ok {
		// Not a word of it counts: say so, lest the rest seem read.
		return nil, []error{&FileError{Path: fe.Path, Line: fe.Line, Col: fe.Col, Err: fmt.Errorf("%w; the file was ignored", fe.Err)}}
	}
	if err != nil {
		return nil, []error{err}
	}
	migrateLegacy(obj)
	written := checkedValues(obj)
	if err := expandFile(obj, getenv, given); err != nil {
		return nil, []error{&FileError{Path: path, Err: err}}
	}
	var problems []error
	for _, err := range checkValues(obj, written, false) {
		problems = append(problems, &FileError{Path: path, Err: fmt.Errorf("%w; ignored", err)})
	}
	return obj, problems
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
			fe.Err = errors.New(jsonMistake(syntax.Error()))
		case errors.As(err, &typ):
			fe.Line, fe.Col = position(src, typ.Offset)
			fe.Err = errors.New("the file must hold a JSON object")
		}
		return nil, fe
	}
	return obj, nil
}

// fromMap decodes a JSON object into v by exact member names, as Gemini
// CLI reads it ("excludetools" is not "excludeTools").
func fromMap(obj map[string]any, v any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	err = jsjson.Decode(data, v)
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return fmt.Errorf("%s must be %s, not %s", typ.Field, jsonTypeName(typ.Type), typ.Value)
	}
	return err
}

func jsonTypeName(t reflect.Type) string {
	if t == reflect.TypeFor[StringList]() {
		return "a string or an array of strings"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}
