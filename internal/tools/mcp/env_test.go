package mcp

import (
	"slices"
	"testing"
)

func TestServerEnvWithholdsSecrets(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "EDITOR=vi",
		"GEMINI_API_KEY=k1", "GOOGLE_API_KEY=k2", "GITHUB_TOKEN=t", "DB_PASSWORD=p", "DATABASE_URL=postgres://x",
		"PROXY=http://user:pw@proxy:3128", "HARMLESS=AIzaSy" + "012345678901234567890123456789012",
		"GEMINI_CLI_IDE=1",
	}
	got := serverEnv(parent, map[string]string{"GITHUB_TOKEN": "$GITHUB_TOKEN", "GREETING": "hi ${USER}!", "DIR": "$HOME/x"})
	slices.Sort(got)
	want := []string{"DIR=/home/u/x", "EDITOR=vi", "GEMINI_CLI_IDE=1", "GITHUB_TOKEN=t", "GREETING=hi !", "HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("env =\n%q\nwant\n%q", got, want)
	}
}
