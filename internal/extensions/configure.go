package extensions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// ErrSensitiveSetting is a sensitive setting to set: Gemini CLI keeps
// those in the system keychain, which gemini-ls neither reads nor writes,
// and typed into a chat the secret would be kept in its history.
var ErrSensitiveSetting = errors.New("it is sensitive: Gemini CLI keeps it in the system keychain, which gemini-ls neither reads nor writes (and typed here it would stay in the conversation's history); set it with `gemini extensions config`")

// FindSetting is ext's declared setting named key, by its name or its
// envVar, as Gemini CLI's updateSetting finds it.
func (ext Extension) FindSetting(key string) (Setting, bool) {
	i := slices.IndexFunc(ext.Settings, func(s Setting) bool { return s.Name == key || s.EnvVar == key })
	if i < 0 {
		return Setting{}, false
	}
	return ext.Settings[i], true
}

// SettingsPath is the .env file ext's settings of user scope are kept
// in, in its directory of ~/.gemini/extensions.
func (ext Extension) SettingsPath() string {
	return filepath.Join(ext.InstallDir, SettingsFile)
}

// SetSetting writes value for ext's setting s into its .env file, as
// Gemini CLI 0.61's updateSetting does for the user scope: the file read
// as dotenv reads it, the value set ("" removes it), the sensitive
// settings' variables dropped, and the rest written back in the file's
// order as its formatEnvContent writes them. A sensitive setting is
// ErrSensitiveSetting, and nothing is written.
func SetSetting(ext Extension, s Setting, value string) error {
	if s.Sensitive {
		return ErrSensitiveSetting
	}
	path := ext.SettingsPath()
	old, err := readEnvFile(path)
	if err != nil {
		return err
	}
	values, order := settings.ParseDotenv(old), settings.DotenvKeys(old)
	if value == "" {
		delete(values, s.EnvVar)
	} else {
		if _, ok := values[s.EnvVar]; !ok {
			order = append(order, s.EnvVar)
		}
		values[s.EnvVar] = value
	}
	for _, declared := range ext.Settings {
		if declared.Sensitive {
			delete(values, declared.EnvVar)
		}
	}
	content, err := formatEnv(order, values)
	if err != nil {
		return err
	}
	if err := safefile.Write(path, []byte(content)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readEnvFile is the .env file at path; none is empty. A directory there
// is Gemini CLI's error.
func readEnvFile(path string) ([]byte, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return nil, fmt.Errorf("Cannot write extension settings to %s because it is a directory.", path)
	}
	return readSettingsFile(path)
}

// envName is the variable names Gemini CLI's formatEnvContent writes.
var envName = lazyregexp.New(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// formatEnv is values, in order, as Gemini CLI 0.61's formatEnvContent
// writes a .env file: KEY=value lines, a value with a space in double
// quotes (its backslashes and quotes escaped); a name it cannot write or a
// value with a line break is its error.
func formatEnv(order []string, values map[string]string) (string, error) {
	var b strings.Builder
	for _, key := range order {
		value, ok := values[key]
		if !ok {
			continue
		}
		if !envName.MatchString(key) {
			return "", fmt.Errorf(`Invalid environment variable name: "%s". Must contain only alphanumeric characters and underscores.`, key)
		}
		if strings.ContainsAny(value, "\r\n") {
			return "", fmt.Errorf(`Invalid environment variable value for "%s". Values cannot contain newlines.`, key)
		}
		if strings.Contains(value, " ") {
			value = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value) + `"`
		}
		b.WriteString(key + "=" + value + "\n")
	}
	return b.String(), nil
}
