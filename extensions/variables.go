package extensions

import (
	"regexp"
)

// Variables are the names ${…} may use in an extension's files
// (gemini-extension.json, hooks/hooks.json), Gemini CLI's
// VariableContext: extensionPath, workspacePath, "/" and pathSeparator.
type Variables map[string]string

// pathVariable is ${name}, Gemini CLI's hydrateString pattern.
var pathVariable = regexp.MustCompile(`\$\{(.*?)\}`)

// Hydrate is s with each ${name} that v defines replaced by its value;
// others stay as written, as Gemini CLI's hydrateString leaves them.
func (v Variables) Hydrate(s string) string {
	return pathVariable.ReplaceAllStringFunc(s, func(m string) string {
		if val, ok := v[m[2:len(m)-1]]; ok {
			return val
		}
		return m
	})
}

// envVariable is $NAME, ${NAME} or ${NAME:-default}: Gemini CLI's
// resolveEnvVarsInString pattern.
var envVariable = regexp.MustCompile(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// resolveEnv is s with each environment variable replaced: from custom
// (the extension's settings) first, then getenv, then its default; one
// that none defines stays as written.
func resolveEnv(s string, custom map[string]string, getenv func(string) string) string {
	return envVariable.ReplaceAllStringFunc(s, func(m string) string {
		idx := envVariable.FindStringSubmatchIndex(m)
		group := func(i int) string {
			if idx[2*i] < 0 {
				return ""
			}
			return m[idx[2*i]:idx[2*i+1]]
		}
		name := group(1) + group(2)
		if v, ok := custom[name]; ok {
			return v
		}
		if getenv != nil {
			if v := getenv(name); v != "" {
				return v
			}
		}
		if idx[6] >= 0 { // ${NAME:-default}, if an empty default
			return group(3)
		}
		return m
	})
}

// walkStrings is v, a decoded JSON value, with f applied to every
// string in it (keys are left alone).
func walkStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case []any:
		for i := range v {
			v[i] = walkStrings(v[i], f)
		}
		return v
	case map[string]any:
		for k := range v {
			v[k] = walkStrings(v[k], f)
		}
		return v
	}
	return v
}
