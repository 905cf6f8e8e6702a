//go:build !gemini_ls_e2e

package builtin

// gitHub is GitHub's endpoints. A binary built with the gemini_ls_e2e
// tag takes others from its environment (setupgithub_endpoints_e2e.go),
// for the end-to-end tests; no released build can be pointed elsewhere.
func gitHub() gitHubEndpoints {
	return gitHubEndpoints{API: "https://api.github.com", Raw: "https://raw.githubusercontent.com"}
}
