package mcp

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/envredact"
)

func TestServerEnvWithholdsSecrets(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "EDITOR=vi",
		"GEMINI_API_KEY=k1", "GOOGLE_API_KEY=k2", "GITHUB_TOKEN=t", "DB_PASSWORD=p", "DATABASE_URL=postgres://x",
		"PROXY=http://user:pw@proxy:3128", "HARMLESS=AIzaSy" + "012345678901234567890123456789012",
		"GEMINI_CLI_IDE=1",
	}
	got := serverEnv(parent, map[string]string{"GITHUB_TOKEN": "$GITHUB_TOKEN", "GREETING": "hi ${USER}!", "DIR": "$HOME/x"}, envredact.Policy{})
	slices.Sort(got)
	want := []string{"DIR=/home/u/x", "EDITOR=vi", "GEMINI_CLI_IDE=1", "GITHUB_TOKEN=t", "GREETING=hi !", "HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("env =\n%q\nwant\n%q", got, want)
	}
}

// security.environmentVariableRedaction's allowed and blocked names count
// for a server as for a shell command, as in 0.61.
func TestServerEnvFollowsTheRedactionSetting(t *testing.T) {
	parent := []string{"PATH=/usr/bin", "EDITOR=vi", "GITHUB_TOKEN=t", "GEMINI_API_KEY=k"}
	got := serverEnv(parent, nil, envredact.Policy{Allowed: []string{"github_token"}, Blocked: []string{"EDITOR"}})
	if want := []string{"PATH=/usr/bin", "GITHUB_TOKEN=t"}; !slices.Equal(got, want) {
		t.Errorf("env = %q, want %q", got, want)
	}
}
