package auth

import (
	"path/filepath"
	"testing"
)

// CheckEnforced words its refusals as 0.61's validateNonInteractiveAuth.
func TestCheckEnforced(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		enforced, selected string
		env                map[string]string
		want               string
	}{
		{enforced: "", selected: "vertex-ai"},
		{enforced: "gemini-api-key", env: map[string]string{"GEMINI_API_KEY": "k"}},
		{enforced: "vertex-ai", selected: "vertex-ai"},
		{enforced: "vertex-ai", env: map[string]string{"GEMINI_API_KEY": "k"},
			want: "The enforced authentication type is 'vertex-ai', but the current type is 'gemini-api-key'. Please re-authenticate with the correct type."},
		{enforced: "oauth-personal", selected: "gemini-api-key",
			want: "The enforced authentication type is 'oauth-personal', but the current type is 'gemini-api-key'. Please re-authenticate with the correct type."},
		{enforced: "vertex-ai",
			want: "The auth type 'vertex-ai' is enforced, but no authentication is configured."},
	}
	for _, tt := range tests {
		env := map[string]string{"HOME": home, "GEMINI_CLI_HOME": filepath.Join(home, "none")}
		for k, v := range tt.env {
			env[k] = v
		}
		err := CheckEnforced(tt.enforced, tt.selected, func(k string) string { return env[k] })
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckEnforced(%q, %q, %v) = %q, want %q", tt.enforced, tt.selected, tt.env, got, tt.want)
		}
	}
}
