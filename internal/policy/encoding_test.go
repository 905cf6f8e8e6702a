package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/policy"
)

// tomlString is s as a TOML basic string, every character JSON or TOML
// might treat specially written as an escape, so that the rule holds
// exactly s.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r == '"' || r == '\\' || r == 0x7f || r == '\u2028' || r == '\u2029' {
			fmt.Fprintf(&b, `\u%04X`, r)
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// A deny rule's commandPrefix matches a command that starts with it,
// whatever characters it holds: the rule's pattern and the command are
// encoded alike (issue 64: encoding/json wrote >, <, & and U+2028 as
// \u escapes the stringified command never has, and such rules never
// matched).
func TestDenyPrefixesWithSpecialCharactersMatch(t *testing.T) {
	for _, prefix := range []string{
		"echo x > /etc/hosts",
		"cat < /etc/shadow",
		"curl -d a&b",
		"echo a\u2028b",
		"echo a\u2029b",
		`echo "quoted"`,
		`echo back\slash`,
		"printf '\x01\x1f'",
		"echo 'tab\there'",
		"echo 'line\nbreak'",
		"echo 'del\x7f'",
		"echo 'bell\a' \b \f \r \v",
	} {
		e := load(t, policy.TierUser, true, map[string]string{"deny.toml": "[[rule]]\ncommandPrefix = " + tomlString(prefix) + "\ndecision = \"deny\"\npriority = 100\n"})
		noProblems(t, e)
		for _, command := range []string{prefix, prefix + " more"} {
			if v := e.Check(shell(command)); v.Decision != policy.Deny {
				t.Errorf("deny rule %q on %q: %q, want deny", prefix, command, v.Decision)
			}
		}
		if v := e.Check(shell("true")); v.Decision != "" {
			t.Errorf("deny rule %q on true: %q, want no decision", prefix, v.Decision)
		}
	}
}
