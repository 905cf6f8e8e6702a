package auth_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

const (
	// missingKey: 0.61's words, then where to get a key.
	missingKey = "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!\n" +
		"Get a key at https://aistudio.google.com/apikey."
	// noCredentials: nothing chose a way in, so the user is told of each.
	noCredentials = "GEMINI_API_KEY environment variable not found. Add that to your environment and try again (no reload needed if using .env)!\n" +
		"Get a key at https://aistudio.google.com/apikey, or choose another way in:\n" +
		"• Sign in with Google: run `gemini-ls login` (or your editor's \"Gemini: Sign in with Google\"), or run `gemini` and choose \"Sign in with Google\"; both cache the same login.\n" +
		"• Vertex AI: set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or with GOOGLE_API_KEY (express mode)."
	missingVertex = "When using Vertex AI, you must specify either:\n" +
		"• GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.\n" +
		"• GOOGLE_API_KEY environment variable (if using express mode).\n" +
		"Update your environment and try again (no reload needed if using .env)!"
)

// writeLogin writes a cached Google login into home/.gemini.
func writeLogin(t *testing.T, home string, creds map[string]any) string {
	t.Helper()
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "oauth_creds.json")
	data, _ := json.Marshal(creds)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestResolve(t *testing.T) {
	home := t.TempDir()
	credsPath := writeLogin(t, home, map[string]any{"access_token": "a", "refresh_token": "r", "expiry_date": 1})
	emptyHome := t.TempDir()
	for _, tc := range []struct {
		name     string
		selected string
		vars     map[string]string
		want     auth.Auth
		wantErr  string
	}{
		{
			name:    "nothing set",
			vars:    map[string]string{},
			wantErr: noCredentials,
		},
		{
			name: "gemini key with base URL",
			vars: map[string]string{"GEMINI_API_KEY": "k1", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"},
			want: auth.Auth{Type: "gemini-api-key", Source: "environment", Config: genai.ClientConfig{
				Backend: genai.BackendGeminiAPI, APIKey: "k1", HTTPOptions: genai.HTTPOptions{BaseURL: "http://127.0.0.1:9"},
			}},
		},
		{
			name:     "gemini key selected but missing",
			selected: "gemini-api-key",
			vars:     map[string]string{"GOOGLE_API_KEY": "g"},
			wantErr:  missingKey,
		},
		{
			name: "vertex with project and location",
			vars: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "my-project", "GOOGLE_CLOUD_LOCATION": "us-central1", "GOOGLE_VERTEX_BASE_URL": "https://v"},
			want: auth.Auth{Type: "vertex-ai", Source: "environment", Config: genai.ClientConfig{
				Backend: genai.BackendVertexAI, Project: "my-project", Location: "us-central1", HTTPOptions: genai.HTTPOptions{BaseURL: "https://v"},
			}},
		},
		{
			name: "vertex express mode",
			vars: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_API_KEY": "gk", "GEMINI_API_KEY": "ignored"},
			want: auth.Auth{Type: "vertex-ai", Source: "environment", Config: genai.ClientConfig{Backend: genai.BackendVertexAI, APIKey: "gk"}},
		},
		{
			name:    "vertex without credentials",
			vars:    map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_CLOUD_PROJECT": "my-project", "GEMINI_API_KEY": "k"},
			wantErr: missingVertex,
		},
		{
			name:     "vertex selected in settings, no variable",
			selected: "vertex-ai",
			vars:     map[string]string{"GEMINI_API_KEY": "k"},
			wantErr:  missingVertex,
		},
		{
			name: "vertex off",
			vars: map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "false", "GEMINI_API_KEY": "k"},
			want: auth.Auth{Type: "gemini-api-key", Source: "environment", Config: genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k"}},
		},
		{
			name: "GCA wins over Vertex AI and a key, as in Gemini CLI",
			vars: map[string]string{"GOOGLE_GENAI_USE_GCA": "true", "GOOGLE_GENAI_USE_VERTEXAI": "true", "GEMINI_API_KEY": "k", "HOME": home, "USERPROFILE": home, "CODE_ASSIST_ENDPOINT": "https://ca", "GOOGLE_CLOUD_PROJECT_ID": "my-project"},
			want: auth.Auth{Type: "oauth-personal", Source: "environment", CodeAssist: auth.CodeAssist{Endpoint: "https://ca", Project: "my-project", CredsPath: credsPath}},
		},
		{
			name:     "settings win over the environment",
			selected: "oauth-personal",
			vars:     map[string]string{"GEMINI_API_KEY": "k", "GEMINI_CLI_HOME": home, "HOME": emptyHome, "USERPROFILE": emptyHome},
			want:     auth.Auth{Type: "oauth-personal", Source: "settings", CodeAssist: auth.CodeAssist{CredsPath: credsPath}},
		},
		{
			name: "nothing chosen, a cached Google login: the login",
			vars: map[string]string{"HOME": home, "USERPROFILE": home},
			want: auth.Auth{Type: "oauth-personal", Source: "default", CodeAssist: auth.CodeAssist{CredsPath: credsPath}},
		},
		{
			name:    "nothing chosen, no cached Google login: every way in",
			vars:    map[string]string{"HOME": emptyHome, "USERPROFILE": emptyHome},
			wantErr: noCredentials,
		},
		{
			name:     "oauth-personal without a cached login",
			selected: "oauth-personal",
			vars:     map[string]string{"HOME": emptyHome, "USERPROFILE": emptyHome},
			wantErr:  "No cached Google login found (" + filepath.Join(emptyHome, ".gemini", "oauth_creds.json") + " does not exist). " + codeassist.LoginHowTo,
		},
		{
			name: "Cloud Shell from the environment",
			vars: map[string]string{"CLOUD_SHELL": "true", "GOOGLE_CLOUD_PROJECT": "my-project"},
			want: auth.Auth{Type: "cloud-shell", Source: "environment", CodeAssist: auth.CodeAssist{Project: "my-project"}},
		},
		{
			name:     "an unknown type",
			selected: "api-key",
			vars:     map[string]string{"GEMINI_API_KEY": "k"},
			wantErr:  `Invalid auth method selected: "api-key" (security.auth.selectedType). Use one of gemini-api-key, vertex-ai, oauth-personal or cloud-shell.`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := auth.Resolve(tc.selected, env(tc.vars))
			if tc.wantErr != "" {
				var authErr *auth.Error
				if !errors.As(err, &authErr) || authErr.Message != tc.wantErr || err.Error() != tc.wantErr {
					t.Fatalf("err = %q, want an *auth.Error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if toJSON(got) != toJSON(tc.want) {
				t.Errorf("auth = %s, want %s", toJSON(got), toJSON(tc.want))
			}
		})
	}
}

// A cached login file that is not a login is reported as such, with how
// to log in.
func TestResolveBrokenLogin(t *testing.T) {
	home := t.TempDir()
	writeLogin(t, home, map[string]any{"scope": "x"})
	_, err := auth.Resolve("oauth-personal", env(map[string]string{"HOME": home, "USERPROFILE": home}))
	var authErr *auth.Error
	if !errors.As(err, &authErr) || !strings.Contains(err.Error(), "cannot be used: it holds no token") || !strings.Contains(err.Error(), "Sign in with Google") {
		t.Fatalf("err = %v", err)
	}
}

// Without a home, the Google login cannot be found, and the message names
// the variable this system reads the home from (USERPROFILE on Windows).
func TestResolveWithoutAHome(t *testing.T) {
	_, err := auth.Resolve("oauth-personal", env(map[string]string{}))
	var authErr *auth.Error
	if !errors.As(err, &authErr) || !strings.Contains(err.Error(), "("+settings.HomeVariable+" and GEMINI_CLI_HOME are unset)") {
		t.Fatalf("err = %v; want an *auth.Error naming %s", err, settings.HomeVariable)
	}
}

// Status says what is chosen and missing, and never a secret.
func TestStatus(t *testing.T) {
	home, empty := t.TempDir(), t.TempDir()
	credsPath := writeLogin(t, home, map[string]any{"access_token": "secret-access", "refresh_token": "secret-refresh"})
	for _, tc := range []struct {
		name     string
		selected string
		vars     map[string]string
		want     auth.Report
	}{
		{"key from the environment", "", map[string]string{"GEMINI_API_KEY": "secret-key", "HOME": empty, "USERPROFILE": empty},
			auth.Report{Type: "gemini-api-key", Source: "environment", Usable: true, Variables: []string{"GEMINI_API_KEY"}, Files: []string{}}},
		{"vertex from settings, incomplete", "vertex-ai", map[string]string{"GOOGLE_CLOUD_PROJECT": "my-project", "GEMINI_API_KEY": "secret-key"},
			auth.Report{Type: "vertex-ai", Source: "settings", Problem: missingVertex, Variables: []string{"GEMINI_API_KEY", "GOOGLE_CLOUD_PROJECT"}, Files: []string{}}},
		{"nothing", "", map[string]string{},
			auth.Report{Type: "gemini-api-key", Source: "default", Problem: noCredentials, Variables: []string{}, Files: []string{}}},
		{"google login", "", map[string]string{"GOOGLE_GENAI_USE_GCA": "true", "HOME": home, "USERPROFILE": home},
			auth.Report{Type: "oauth-personal", Source: "environment", Usable: true, Variables: []string{"GOOGLE_GENAI_USE_GCA"}, Files: []string{credsPath}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := auth.Status(tc.selected, env(tc.vars))
			if toJSON(got) != toJSON(tc.want) {
				t.Errorf("status = %s\nwant     %s", toJSON(got), toJSON(tc.want))
			}
			if s := toJSON(got); strings.Contains(s, "secret") {
				t.Errorf("status shows a secret: %s", s)
			}
		})
	}
}
