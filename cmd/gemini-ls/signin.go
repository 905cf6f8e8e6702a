//go:build !gemini_ls_e2e

package main

import "github.com/gemini-ls/gemini-ls/internal/auth/login"

// signInEndpoints are the sign-in's: Google's. A binary built with the
// gemini_ls_e2e tag takes others from its environment (signin_e2e.go),
// for the end-to-end tests; no released build can be pointed elsewhere.
func signInEndpoints() login.Endpoints { return login.Google() }
