//go:build gemini_ls_e2e

package main

import (
	"os"

	"github.com/gemini-ls/gemini-ls/internal/auth/login"
)

// signInEndpoints, in a test build only, are the fake authorization
// server's that the end-to-end tests name (logintest), read from the
// process environment, never from a .env file.
func signInEndpoints() login.Endpoints {
	if os.Getenv("GEMINI_LS_E2E_OAUTH_AUTH_URL") == "" {
		return login.Google()
	}
	return login.Endpoints{
		AuthURL:     os.Getenv("GEMINI_LS_E2E_OAUTH_AUTH_URL"),
		TokenURL:    os.Getenv("GEMINI_LS_E2E_OAUTH_TOKEN_URL"),
		UserInfoURL: os.Getenv("GEMINI_LS_E2E_OAUTH_USERINFO_URL"),
	}
}
