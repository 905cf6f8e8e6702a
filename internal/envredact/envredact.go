// Package envredact keeps secrets out of the environment of the commands
// gemini-ls starts on the model's behalf, with Gemini CLI 0.61's rules
// (environmentSanitization.ts: sanitizeEnvironment and
// shouldRedactEnvironmentVariable) and its settings
// security.environmentVariableRedaction.{enabled,allowed,blocked}.
package envredact

import (
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// Policy is security.environmentVariableRedaction.
type Policy struct {
	// Enabled redacts the variables that may hold secrets.
	Enabled bool
	// Allowed are names always passed on, Blocked names always redacted
	// (case-insensitive); Allowed wins.
	Allowed, Blocked []string
}

// Sanitize is env ("KEY=value" entries) without the entries p redacts.
// As in 0.61, a GitHub Actions run (GITHUB_SHA set, or SURFACE=Github)
// is sanitized strictly, enabled or not: only the always-allowed
// variables and p.Allowed pass.
func Sanitize(env []string, p Policy) []string {
	strict := lookup(env, "GITHUB_SHA") != "" || lookup(env, "SURFACE") == "Github"
	if !p.Enabled && !strict {
		return slices.Clone(env)
	}
	allowed, blocked := upperSet(p.Allowed), upperSet(p.Blocked)
	out := make([]string, 0, len(env))
	for _, kv := range env {
		key, value, _ := strings.Cut(kv, "=")
		if !shouldRedact(key, value, allowed, blocked, strict) {
			out = append(out, kv)
		}
	}
	return out
}

// shouldRedact is shouldRedactEnvironmentVariable: whether the variable
// key=value is kept from a command. allowed and blocked hold upper-case
// names.
func shouldRedact(key, value string, allowed, blocked map[string]bool, strict bool) bool {
	key, value = strings.ToUpper(key), strings.ToUpper(value)
	if strings.HasPrefix(key, "GEMINI_CLI_") {
		return false
	}
	if value != "" && slices.ContainsFunc(neverAllowedValues, func(re *lazyregexp.Regexp) bool { return re.MatchString(value) }) {
		return true
	}
	switch {
	case strings.HasPrefix(key, "GIT_CONFIG_"), allowed[key]:
		return false
	case blocked[key]:
		return true
	case slices.Contains(alwaysAllowed, key):
		return false
	case slices.Contains(neverAllowed, key), strict:
		return true
	}
	return slices.ContainsFunc(neverAllowedNames, func(name string) bool { return strings.Contains(key, name) })
}

// The lists, as 0.61 names them (ALWAYS_ALLOWED_ENVIRONMENT_VARIABLES,
// NEVER_ALLOWED_ENVIRONMENT_VARIABLES, NEVER_ALLOWED_NAME_PATTERNS,
// NEVER_ALLOWED_VALUE_PATTERNS). 0.61's name patterns are /TOKEN/i and
// their like: a name containing the word, in any case.
var (
	alwaysAllowed = []string{
		"PATH",
		"SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP", "USERPROFILE", "SYSTEMDRIVE",
		"HOME", "LANG", "SHELL", "TMPDIR", "USER", "LOGNAME",
		"TERM", "COLORTERM",
		"ADDITIONAL_CONTEXT", "AVAILABLE_LABELS", "BRANCH_NAME", "DESCRIPTION", "EVENT_NAME", "GITHUB_ENV",
		"IS_PULL_REQUEST", "ISSUES_TO_TRIAGE", "ISSUE_BODY", "ISSUE_NUMBER", "ISSUE_TITLE",
		"PULL_REQUEST_NUMBER", "REPOSITORY", "TITLE", "TRIGGERING_ACTOR",
	}
	neverAllowed = []string{
		"CLIENT_ID", "DB_URI", "CONNECTION_STRING", "AWS_DEFAULT_REGION", "AZURE_CLIENT_ID", "AZURE_TENANT_ID",
		"SLACK_WEBHOOK_URL", "TWILIO_ACCOUNT_SID", "DATABASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_ACCOUNT",
		"FIREBASE_PROJECT_ID",
	}
	neverAllowedNames = []string{
		"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL", "CREDS", "PRIVATE", "CERT",
	}
	// Matched against the upper-cased value, as 0.61 does (its patterns
	// are case-insensitive besides). 0.61's bounded repeats ({1,1024},
	// {0,10240}), there against backtracking, are unbounded here: RE2 does
	// not backtrack and caps counts at 1000, and in an unanchored search
	// both match the same values.
	neverAllowedValues = []*lazyregexp.Regexp{
		lazyregexp.New(`(?i)-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----`),
		lazyregexp.New(`(?i)-----BEGIN CERTIFICATE-----`),
		lazyregexp.New(`(?i)(https?|ftp|smtp)://[^:\s]+:[^@\s]+@`),
		lazyregexp.New(`(?i)(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}`),
		lazyregexp.New(`(?i)AIzaSy[a-zA-Z0-9_\\-]{33}`),
		lazyregexp.New(`(?i)AKIA[A-Z0-9]{16}`),
		lazyregexp.New(`(?i)eyJ[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*`),
		lazyregexp.New(`(?i)(s|r)k_(live|test)_[0-9a-zA-Z]{24}`),
		lazyregexp.New(`(?i)xox[abpr]-[a-zA-Z0-9-]+`),
	}
)

func upperSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[strings.ToUpper(n)] = true
	}
	return set
}

// lookup is env's last value of key.
func lookup(env []string, key string) string {
	value := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			value = v
		}
	}
	return value
}
