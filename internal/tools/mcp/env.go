package mcp

import (
	"os"
	"regexp"
	"slices"
	"strings"
)

// serverEnv is a stdio server's environment, as Gemini CLI builds it:
// gemini-ls's own, less what looks like a secret (so that an API key is
// never handed to a third-party server by accident), plus the server's
// "env", where $VAR and ${VAR} name gemini-ls's variables, secrets
// included: that is how a user passes one on purpose.
func serverEnv(parent []string, extra map[string]string) []string {
	rules := newSecretRules()
	lookup := make(map[string]string, len(parent))
	var env []string
	for _, kv := range parent {
		k, v, _ := strings.Cut(kv, "=")
		lookup[k] = v
		if !rules.secret(k, v) {
			env = append(env, kv)
		}
	}
	for k, v := range extra {
		env = append(env, k+"="+os.Expand(v, func(name string) string { return lookup[name] }))
	}
	return env
}

// secretRules are Gemini CLI's environmentSanitization rules, compiled
// when a server starts rather than at every start of gemini-ls.
type secretRules struct{ name, value *regexp.Regexp }

func newSecretRules() secretRules {
	return secretRules{
		name:  regexp.MustCompile(`(?i)TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT`),
		value: regexp.MustCompile(`(?i)-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----|-----BEGIN CERTIFICATE-----|(https?|ftp|smtp)://[^:\s]+:[^@\s]+@|(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}|AIzaSy[a-zA-Z0-9_\\-]{33}|AKIA[A-Z0-9]{16}|eyJ[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*|(s|r)k_(live|test)_[0-9a-zA-Z]{24}|xox[abpr]-[a-zA-Z0-9-]+`),
	}
}

var neverAllowed = []string{
	"CLIENT_ID", "DB_URI", "CONNECTION_STRING", "AWS_DEFAULT_REGION",
	"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "SLACK_WEBHOOK_URL", "TWILIO_ACCOUNT_SID",
	"DATABASE_URL", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_ACCOUNT", "FIREBASE_PROJECT_ID",
}

// secret reports whether a variable is withheld, by Gemini CLI's rules
// (environmentSanitization.ts): by its value, then by its name.
func (r secretRules) secret(name, value string) bool {
	name = strings.ToUpper(name)
	switch {
	case strings.HasPrefix(name, "GEMINI_CLI_"):
		return false
	case r.value.MatchString(value):
		return true
	case strings.HasPrefix(name, "GIT_CONFIG_"):
		return false
	}
	switch name {
	case "PATH", "HOME", "LANG", "SHELL", "TMPDIR", "USER", "LOGNAME", "TERM", "COLORTERM",
		"SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP", "USERPROFILE", "SYSTEMDRIVE":
		return false
	}
	return slices.Contains(neverAllowed, name) || r.name.MatchString(name)
}
