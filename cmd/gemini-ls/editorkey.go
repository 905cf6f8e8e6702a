package main

import (
	"os"

	geminiauth "github.com/gemini-ls/gemini-ls/internal/auth"
)

// processEnv is the environment a front end reads: the process's, with
// the API key an editor handed over (auth.EditorKeyVar, VS Code's secret
// storage) read as GEMINI_API_KEY, over one the environment has, as the
// editor's key was set over it before. The variable is taken out of the
// process's environment first, so no command, hook or server gemini-ls
// starts inherits the key; a GEMINI_API_KEY of the user's own
// environment reaches them as in Gemini CLI 0.61. The environment read
// still answers auth.EditorKeyVar, so the build can tell the editor's key
// from the user's and name it truthfully in an error.
func processEnv() (func(string) string, func(string) (string, bool)) {
	key := geminiauth.TakeEditorKey()
	if key == "" {
		return os.Getenv, os.LookupEnv
	}
	getenv, lookupEnv := withEnv(os.Getenv, os.LookupEnv, "GEMINI_API_KEY", key)
	return withEnv(getenv, lookupEnv, geminiauth.EditorKeyVar, key)
}
