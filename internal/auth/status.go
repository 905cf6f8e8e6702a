package auth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Report is what gemini/authStatus tells a client about the auth set-up.
// It never holds a secret: variables are reported by name only.
type Report struct {
	// Type is the auth type chosen (Gemini CLI's name).
	Type string `json:"type"`
	// Source says why: "settings" (security.auth.selectedType),
	// "environment" or "default" (nothing named a type).
	Source string `json:"source"`
	// Usable is true when the credentials the type needs are there. A
	// usable set-up can still be refused by the server.
	Usable bool `json:"usable"`
	// Problem is what is missing, in the words a request would fail with.
	Problem string `json:"problem,omitempty"`
	// Variables are the auth-related environment variables that are set.
	Variables []string `json:"variables"`
	// Files are the credential files found.
	Files []string `json:"files"`
}

// authVariables are the variables Resolve reads.
var authVariables = []string{
	"GEMINI_API_KEY", "GOOGLE_API_KEY",
	"GOOGLE_GENAI_USE_GCA", "GOOGLE_GENAI_USE_VERTEXAI", "CLOUD_SHELL", "GEMINI_CLI_USE_COMPUTE_ADC",
	"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT_ID", "GOOGLE_CLOUD_LOCATION",
	"GOOGLE_APPLICATION_CREDENTIALS",
	"GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL", "CODE_ASSIST_ENDPOINT",
	"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY",
}

// Status reports the auth set-up Resolve would choose for selectedType and
// getenv, without contacting anything.
func Status(selectedType string, getenv func(string) string) Report {
	r := Report{Variables: []string{}, Files: []string{}}
	for _, name := range authVariables {
		if strings.TrimSpace(getenv(name)) != "" {
			r.Variables = append(r.Variables, name)
		}
	}
	if dir := settings.UserDir(getenv); dir != "" {
		path := filepath.Join(dir, codeassist.CredsFile)
		if codeassist.CheckLogin(path) == nil {
			r.Files = append(r.Files, path)
		}
	}
	if path := strings.TrimSpace(getenv("GOOGLE_APPLICATION_CREDENTIALS")); path != "" {
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			r.Files = append(r.Files, path)
		}
	}
	a, err := Resolve(selectedType, getenv)
	var authErr *Error
	switch {
	case err == nil:
		r.Type, r.Source, r.Usable = a.Type, a.Source, true
	case errors.As(err, &authErr):
		r.Type, r.Problem = authErr.Type, authErr.Message
		r.Source = sourceOf(selectedType, getenv)
	default:
		r.Problem = err.Error()
	}
	return r
}

// sourceOf is where Resolve takes the type from.
func sourceOf(selectedType string, getenv func(string) string) string {
	switch {
	case strings.TrimSpace(selectedType) != "":
		return FromSettings
	case typeFromEnv(func(k string) string { return strings.TrimSpace(getenv(k)) }) != "":
		return FromEnvironment
	}
	return FromDefault
}
