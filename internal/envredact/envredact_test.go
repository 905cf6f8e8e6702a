package envredact

import (
	"slices"
	"testing"
)

// on is redaction enabled, with nothing allowed or blocked.
var on = Policy{Enabled: true}

// The cases of 0.61's environmentSanitization.test.ts: env in, the
// entries kept out.
func TestSanitizeAsGeminiCLI(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		env    []string
		want   []string
	}{
		{"safe common variables", on,
			[]string{"PATH=/usr/bin", "HOME=/home/user", "USER=user", `SystemRoot=C:\Windows`, "LANG=en_US.UTF-8"},
			nil},
		{"TERM and COLORTERM", on, []string{"TERM=xterm-256color", "COLORTERM=truecolor"}, nil},
		{"TERM and COLORTERM kept in strict mode", on,
			[]string{"GITHUB_SHA=abc123", "TERM=xterm-256color", "COLORTERM=truecolor", "SOME_OTHER_VAR=value"},
			[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}},
		{"strict mode even when disabled", Policy{},
			[]string{"SURFACE=Github", "PATH=/usr/bin", "NODE_ENV=production"},
			[]string{"PATH=/usr/bin"}},
		{"GEMINI_CLI_ prefix", on, []string{"GEMINI_CLI_FOO=bar", "GEMINI_CLI_BAZ=qux"}, nil},
		{"denylisted names", on,
			[]string{"CLIENT_ID=sensitive-id", "DB_URI=sensitive-uri", "DATABASE_URL=sensitive-url", "SAFE_VAR=is-safe"},
			[]string{"SAFE_VAR=is-safe"}},
		{"sensitive name patterns, any case", on,
			[]string{"MY_API_TOKEN=token-value", "AppSecret=secret-value", "db_password=password-value", "ORA_PASSWD=password-value",
				"ANOTHER_KEY=key-value", "some_auth_var=auth-value", "USER_CREDENTIAL=cred-value", "AWS_CREDS=creds-value",
				"PRIVATE_STUFF=private-value", "SSL_CERT=cert-value", "USEFUL_INFO=is-ok"},
			[]string{"USEFUL_INFO=is-ok"}},
		{"private keys and certificates in values", on,
			[]string{"RSA_KEY=-----BEGIN RSA PRIVATE KEY-----...", "OPENSSH_KEY=-----BEGIN OPENSSH PRIVATE KEY-----...",
				"EC_KEY=-----BEGIN EC PRIVATE KEY-----...", "PGP_KEY=-----BEGIN PGP PRIVATE KEY-----...",
				"CERTIFICATE=-----BEGIN CERTIFICATE-----...", "SAFE_VAR=is-safe"},
			[]string{"SAFE_VAR=is-safe"}},
		{"tokens and credentials in values", on,
			[]string{"GH1=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "GH2=gho_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				"GH3=ghu_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "GH4=ghs_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				"GH5=ghr_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "GH6=github_pat_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				"G=AIzaSyxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "A=AKIAxxxxxxxxxxxxxxxx",
				"J=eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA157xAA_7962-a_3rA",
				"S1=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx", "S2=rk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
				"S3=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx", "S4=rk_test_xxxxxxxxxxxxxxxxxxxxxxxx",
				"SL1=xoxb-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxx", "SL2=xoxa-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxx",
				"SL3=xoxp-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxx", "SL4=xoxr-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxx",
				"U1=https://user:password@example.com", "U2=http://user:password@example.com",
				"U3=ftp://user:password@example.com", "U4=smtp://user:password@example.com",
				"SAFE_VAR=is-safe"},
			[]string{"SAFE_VAR=is-safe"}},
		{"look-alikes kept", on,
			[]string{"SAFE_URL=https://example.com/foo/bar", "NOT_A_JWT=this.is.not.a.jwt", "ALMOST_A_TOKEN=ghp_12345",
				"PUBLIC_KEY_INFO=This value describes a public key", "KEYNOTE_SPEAKER=Dr. Jane Goodall",
				"CERTIFIED_DIVER=true", "AUTHENTICATION_FLOW=oauth", "PRIVATE_JET_OWNER=false"},
			[]string{"SAFE_URL=https://example.com/foo/bar", "NOT_A_JWT=this.is.not.a.jwt"}},
		{"empty values of safe names", on, []string{"EMPTY_VAR=", "ANOTHER_SAFE_VAR=value"}, nil},
		{"no rule matches", on, []string{"NODE_ENV=development", "APP_VERSION=1.0.0"}, nil},
		{"empty", on, []string{}, []string{}},
		{"mixed", on,
			[]string{"PATH=/usr/bin", "HOME=/home/user", "GEMINI_CLI_VERSION=1.2.3", "NODE_ENV=production",
				"API_KEY=should-be-redacted", "MY_SECRET=super-secret", "GH_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				"JWT=eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA157xAA_7962-a_3rA", "RANDOM_VAR=-----BEGIN CERTIFICATE-----..."},
			[]string{"PATH=/usr/bin", "HOME=/home/user", "GEMINI_CLI_VERSION=1.2.3", "NODE_ENV=production"}},
		{"always-allowed holding a token", on, []string{"HOME=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "PATH=/usr/bin"}, []string{"PATH=/usr/bin"}},
		{"always-allowed holding a key", on,
			[]string{"SHELL=-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----", "USER=alice"},
			[]string{"USER=alice"}},
		{"allowed holding a secret", Policy{Enabled: true, Allowed: []string{"MY_SAFE_VAR"}},
			[]string{"MY_SAFE_VAR=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "OTHER=fine"}, []string{"OTHER=fine"}},
		{"GEMINI_CLI_ trusted whatever its value", on, []string{"GEMINI_CLI_INTERNAL=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}, nil},
		{"allowed", Policy{Enabled: true, Allowed: []string{"MY_TOKEN"}},
			[]string{"MY_TOKEN=secret-token", "OTHER_SECRET=another-secret"}, []string{"MY_TOKEN=secret-token"}},
		{"blocked", Policy{Enabled: true, Blocked: []string{"BLOCKED_VAR"}},
			[]string{"SAFE_VAR=safe-value", "BLOCKED_VAR=blocked-value"}, []string{"SAFE_VAR=safe-value"}},
		{"allowed wins over blocked", Policy{Enabled: true, Allowed: []string{"CONFLICT_VAR"}, Blocked: []string{"CONFLICT_VAR"}},
			[]string{"CONFLICT_VAR=value"}, nil},
		{"allowed and blocked ignore case", Policy{Enabled: true, Allowed: []string{"my_token"}, Blocked: []string{"blocked_var"}},
			[]string{"MY_TOKEN=secret-token", "BLOCKED_VAR=blocked-value"}, []string{"MY_TOKEN=secret-token"}},
		{"disabled", Policy{},
			[]string{"MY_API_TOKEN=token-value", "AppSecret=secret-value", "db_password=password-value",
				"RSA_KEY=-----BEGIN RSA PRIVATE KEY-----...", "GITHUB_TOKEN_GHP=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "SAFE_VAR=is-safe"},
			nil},
		{"gemini-ls's own keys", on,
			[]string{"GEMINI_API_KEY=abc", "GOOGLE_API_KEY=AIzaSyxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "GIT_CONFIG_COUNT=1"},
			[]string{"GIT_CONFIG_COUNT=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == nil {
				want = tt.env // everything kept
			}
			if got := Sanitize(tt.env, tt.policy); !slices.Equal(got, want) {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.env, got, want)
			}
		})
	}
}
