package telemetry

import (
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// Redacted replaces a credential in an attribute.
const Redacted = "[REDACTED]"

// shapes are credentials recognisable by their form, wherever they come
// from (a prompt, a tool's arguments, a model's answer): Google API keys,
// Google OAuth access and refresh tokens, and the value of an
// Authorization or API key header.
var shapes = []*lazyregexp.Regexp{
	lazyregexp.New(`AIza[0-9A-Za-z_\-]{35}`),
	lazyregexp.New(`ya29\.[0-9A-Za-z_\-.]+`),
	lazyregexp.New(`1//[0-9A-Za-z_\-]{20,}`),
	lazyregexp.New(`(?i)(bearer|basic)\s+[0-9A-Za-z_\-.~+/=]{8,}`),
	lazyregexp.New(`(?i)((?:x-goog-api-key|x-api-key|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)[^\s"',}]{8,}`),
}

// Redactor takes credentials out of attribute values: the secrets it was
// given by value, and anything of a credential's shape.
type Redactor struct {
	secrets []string
}

// minSecret is the shortest value taken as a secret: shorter ones ("1",
// "true") would blank ordinary words.
const minSecret = 8

// NewRedactor returns a Redactor of secrets (empty and short ones are
// ignored); the longest are replaced first, so that a secret containing
// another goes whole.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) >= minSecret && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// SecretEnv is the values of environment variables whose names say they
// hold a secret (…KEY, …TOKEN, …SECRET, …PASSWORD, …CREDENTIALS; not …AUTH…,
// whose values are modes such as GEMINI_DEFAULT_AUTH_TYPE's), for
// NewRedactor; environ is os.Environ's form.
func SecretEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		upper := strings.ToUpper(name)
		for _, word := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"} {
			if strings.Contains(upper, word) {
				out = append(out, value)
				break
			}
		}
	}
	return out
}

// String returns s with every credential replaced by Redacted.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	for i, re := range shapes {
		if i == len(shapes)-1 { // keep the header's name, drop its value
			s = re.ReplaceAllString(s, "${1}"+Redacted)
			continue
		}
		s = re.ReplaceAllString(s, Redacted)
	}
	return s
}
