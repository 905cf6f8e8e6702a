package extensions

import (
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// Variables are the names ${…} may use in an extension's files
// (gemini-extension.json, hooks/hooks.json), Gemini CLI's
// VariableContext: extensionPath, workspacePath, "/" and pathSeparator.
type Variables map[string]string

// pathVariable is ${name}, Gemini CLI's hydrateString pattern.
var pathVariable = lazyregexp.New(`\$\{(.*?)\}`)

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
var envVariable = lazyregexp.New(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// maxGrowth bounds what variables may add to one manifest, so that a
// few bytes of "$BIG" repeated cannot make gemini-ls hold gigabytes.
const maxGrowth = 1 << 20

// minRedacted is the shortest value a variable gives that is hidden from
// messages, as settings.Settings.Redact hides them.
const minRedacted = 4

// resolver replaces the environment variables of a manifest's strings:
// from custom (the extension's settings) first, then getenv, then the
// default; one that none defines stays as written. given records each
// value of at least minRedacted bytes with its variable's name.
type resolver struct {
	custom map[string]string
	getenv func(string) string
	budget int // bytes the variables may still add
	given  map[string]string
}

func newResolver(custom map[string]string, getenv func(string) string) *resolver {
	return &resolver{custom: custom, getenv: getenv, budget: maxGrowth, given: map[string]string{}}
}

// resolve is s with its variables replaced; past the budget the
// variables stay as written, and exceeded says so.
func (r *resolver) resolve(s string) string {
	return envVariable.ReplaceAllStringFunc(s, func(m string) string {
		idx := envVariable.FindStringSubmatchIndex(m)
		group := func(i int) string {
			if idx[2*i] < 0 {
				return ""
			}
			return m[idx[2*i]:idx[2*i+1]]
		}
		name := group(1) + group(2)
		val, ok := r.custom[name]
		if !ok && r.getenv != nil {
			val = r.getenv(name)
			ok = val != ""
		}
		switch {
		case ok:
			if len(val) >= minRedacted {
				r.given[val] = name
			}
		case idx[6] >= 0: // ${NAME:-default}, if an empty default
			val = group(3)
		default:
			return m
		}
		if r.budget -= len(val) - len(m); r.budget < 0 {
			return m
		}
		return val
	})
}

// exceeded reports whether the variables would have added more than
// maxGrowth bytes.
func (r *resolver) exceeded() bool { return r.budget < 0 }

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
