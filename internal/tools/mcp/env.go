package mcp

import (
	"os"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
)

// serverEnv is a stdio server's environment, as Gemini CLI builds it:
// gemini-ls's own, less what looks like a secret by 0.61's rules with
// redaction on whatever the setting says (so that an API key is never
// handed to a third-party server by accident; the setting's allowed and
// blocked names still count), plus the server's "env", where $VAR and
// ${VAR} name gemini-ls's variables, secrets included: that is how a user
// passes one on purpose.
func serverEnv(parent []string, extra map[string]string, redaction envredact.Policy) []string {
	redaction.Enabled = true
	env := envredact.Sanitize(parent, redaction)
	lookup := make(map[string]string, len(parent))
	for _, kv := range parent {
		k, v, _ := strings.Cut(kv, "=")
		lookup[k] = v
	}
	for k, v := range extra {
		env = append(env, k+"="+os.Expand(v, func(name string) string { return lookup[name] }))
	}
	return env
}
