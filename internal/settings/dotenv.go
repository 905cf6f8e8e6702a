package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// LookupEnv looks up an environment variable, telling unset from empty
// (os.LookupEnv).
type LookupEnv func(string) (string, bool)

// DefaultExcludedEnvVars are Gemini CLI's DEFAULT_EXCLUDED_ENV_VARS, the
// variables a project's .env may not set when no excluded list is given.
// Loaded settings always give one (advanced.excludedEnvVars, DEBUG and
// DEBUG_MODE by the schema's default), so, as in 0.61, these are the
// fallback of a caller without settings only.
var DefaultExcludedEnvVars = []string{"DEBUG", "DEBUG_MODE", "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND", "GEMINI_CLI_IDE_SERVER_STDIO_ARGS"}

// untrustedEnvVars are the only variables read from a .env file in an
// untrusted workspace (Gemini CLI's AUTH_ENV_VAR_WHITELIST).
var untrustedEnvVars = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"}

// DotenvOptions say where to look for a .env file and what it may set.
type DotenvOptions struct {
	// Dir is the working root the search starts from.
	Dir string
	// Trusted is whether Dir is a trusted folder (Trust.Trusted, decided
	// from the process environment before any .env is read). Only then is
	// a .gemini/.env read, and a .env file may set anything;
	// otherwise it may set only the auth variables, their values stripped
	// to letters, digits and -_./ as Gemini CLI strips them.
	Trusted bool
	// ExcludedEnvVars is advanced.excludedEnvVars: variables a plain .env
	// file (not one in a .gemini directory) does not set.
	// DefaultExcludedEnvVars when nil, as 0.61's "|| DEFAULT".
	ExcludedEnvVars []string
	// IgnoreLocalEnv is advanced.ignoreLocalEnv: a plain .env is read only
	// from the home directory.
	IgnoreLocalEnv bool
}

// LoadDotenv finds the .env file Gemini CLI would load and returns a
// getenv that answers from lookup (the process environment) first and the
// file second: a variable already set, even to "", wins. The file is the
// first found from opts.Dir upward, in each directory .gemini/.env (when
// trusted) then .env; else ~/.gemini/.env (when trusted) then ~/.env, ~
// being Home. path is the file used ("" when none).
// A file that cannot be read is an error, and its variables are left out;
// nothing else is changed: the process environment is not touched.
func LoadDotenv(lookup LookupEnv, opts DotenvOptions) (getenv Getenv, path string, err error) {
	values := map[string]string{}
	getenv = func(name string) string {
		if v, ok := lookup(name); ok {
			return v
		}
		return values[name]
	}
	home := Home(func(name string) string { v, _ := lookup(name); return v })
	path = findEnvFile(opts.Dir, home, opts.Trusted, opts.IgnoreLocalEnv)
	if path == "" {
		return getenv, "", nil
	}
	src, err := safefile.Read(path, maxFileSize)
	if err != nil {
		return getenv, path, &FileError{Path: path, Err: err}
	}
	excluded := opts.ExcludedEnvVars
	if excluded == nil {
		excluded = DefaultExcludedEnvVars
	}
	// Files in a .gemini directory are gemini-ls's own; the exclusions are
	// for a project's .env, written for the project's tools.
	projectFile := filepath.Base(filepath.Dir(path)) != configfiles.Gemini
	for key, value := range parseDotenv(src) {
		if !opts.Trusted {
			if !slices.Contains(untrustedEnvVars, key) {
				continue
			}
			value = unsafeEnvChars.ReplaceAllString(value, "")
		}
		if projectFile && slices.Contains(excluded, key) {
			continue
		}
		values[key] = value
	}
	return getenv, path, nil
}

var unsafeEnvChars = lazyregexp.New(`[^a-zA-Z0-9\-_./]`)

// findEnvFile is Gemini CLI's findEnvFile: "" when there is none.
func findEnvFile(start, home string, trusted, ignoreLocal bool) string {
	for _, p := range DotenvCandidates(start, home) {
		dir := filepath.Dir(p)
		switch {
		case filepath.Base(dir) == configfiles.Gemini && !trusted:
		case filepath.Base(dir) != configfiles.Gemini && ignoreLocal && dir != home:
		default:
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// DotenvCandidates are the files LoadDotenv looks for, in its order, the
// first that exists being the one read: in each directory from start
// upward .gemini/.env then .env, then home's .gemini/.env and .env
// (.gemini/.env only when trusted, a plain .env only in home when
// advanced.ignoreLocalEnv says so).
func DotenvCandidates(start, home string) []string {
	var out []string
	dir, err := filepath.Abs(start)
	if err != nil || start == "" {
		dir = ""
	}
	for dir != "" {
		out = append(out, configfiles.In(dir, configfiles.Env), filepath.Join(dir, configfiles.Env))
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if home != "" {
		out = append(out, configfiles.In(home, configfiles.Env), filepath.Join(home, configfiles.Env))
	}
	return out
}

// ParseDotenv parses a .env file as LoadDotenv does (parseDotenv): for
// the other .env files Gemini CLI reads, as an extension's settings.
func ParseDotenv(src []byte) map[string]string { return parseDotenv(src) }

// parseDotenv parses a .env file as the dotenv package Gemini CLI uses
// does: KEY=value or KEY: value lines, an optional "export ", comments
// from #, values in single, double or back quotes (which may span lines;
// in double quotes \n and \r are a newline and a carriage return),
// unquoted values trimmed. A later line wins. Lines it cannot read are
// skipped, as dotenv skips them.
func parseDotenv(src []byte) map[string]string {
	out := map[string]string{}
	eachDotenvEntry(src, func(key, value string) { out[key] = value })
	return out
}

// DotenvKeys are the keys of the .env file src, read as ParseDotenv reads
// it, in the order they first come: the order the JavaScript object
// dotenv parses into keeps them.
func DotenvKeys(src []byte) []string {
	var keys []string
	eachDotenvEntry(src, func(key, _ string) {
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	})
	return keys
}

// eachDotenvEntry calls entry with each entry of the .env file src, in
// order, as parseDotenv reads them.
func eachDotenvEntry(src []byte, entry func(key, value string)) {
	s := strings.ReplaceAll(strings.ReplaceAll(string(src), "\r\n", "\n"), "\r", "\n")
	for len(s) > 0 {
		if key, value, consumed, ok := parseDotenvEntry(s); ok {
			entry(key, value)
			s = s[consumed:]
			continue
		}
		_, s, _ = strings.Cut(s, "\n")
	}
}

var dotenvKey = lazyregexp.New(`^[ \t]*(?:export[ \t]+)?([\w.-]+)(?:[ \t]*=[ \t]*|:[ \t]+)`)

// parseDotenvEntry reads the entry at the start of s: its key, value and
// how much of s it took (up to and including its line's newline).
func parseDotenvEntry(s string) (key, value string, consumed int, ok bool) {
	m := dotenvKey.FindStringSubmatchIndex(s)
	if m == nil {
		return "", "", 0, false
	}
	key = s[m[2]:m[3]]
	pos := m[1]
	// A quoted value: the closing quote must end the line, but for
	// spaces and a comment. A backslash escapes the quote, yet as
	// dotenv's regexp backtracks, an escaped quote closes the value when
	// the first unescaped one cannot: the last quote up to that one
	// that ends its line closes it.
	if pos < len(s) && strings.ContainsRune(`'"`+"`", rune(s[pos])) {
		q := s[pos]
		last := pos + 1
		for last < len(s) && s[last] != q {
			if s[last] == '\\' && last+1 < len(s) && s[last+1] == q {
				last++
			}
			last++
		}
		for i := min(last, len(s)-1); i > pos; i-- {
			if s[i] != q {
				continue
			}
			after, end := lineEnd(s, i+1)
			if t := strings.TrimLeft(after, " \t"); t == "" || t[0] == '#' {
				value = s[pos+1 : i]
				if q == '"' {
					value = strings.NewReplacer(`\n`, "\n", `\r`, "\r").Replace(value)
				}
				return key, value, end, true
			}
		}
	}
	// Unquoted: up to a comment or the end of the line, trimmed.
	raw, end := lineEnd(s, pos)
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	return key, strings.TrimSpace(raw), end, true
}

// lineEnd returns s from i to the end of its line, and the index after
// that line's newline.
func lineEnd(s string, i int) (string, int) {
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return s[i:], len(s)
	}
	return s[i : i+j], i + j + 1
}
