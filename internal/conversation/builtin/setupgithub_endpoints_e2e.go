//go:build gemini_ls_e2e

package builtin

import "os"

// gitHub, in a test build only, is the fake GitHub the end-to-end tests
// name, read from the process environment, never from a .env file;
// GitHub's when they name none.
func gitHub() gitHubEndpoints {
	if api := os.Getenv("GEMINI_LS_E2E_GITHUB_API_URL"); api != "" {
		return gitHubEndpoints{API: api, Raw: os.Getenv("GEMINI_LS_E2E_GITHUB_RAW_URL")}
	}
	return gitHubEndpoints{API: "https://api.github.com", Raw: "https://raw.githubusercontent.com"}
}
