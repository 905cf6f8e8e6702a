package main

import (
	"os"
	"testing"

	geminiauth "github.com/gemini-ls/gemini-ls/internal/auth"
)

// The editor's key is read as GEMINI_API_KEY, over the environment's, and
// authenticates; the variable it came in is gone from the process's
// environment, which every child inherits.
func TestTheEditorsKeyAuthenticatesAndLeavesTheEnvironment(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "users-own")
	t.Setenv(geminiauth.EditorKeyVar, "editor-kept")
	getenv, lookupEnv := processEnv()
	if _, ok := os.LookupEnv(geminiauth.EditorKeyVar); ok {
		t.Errorf("%s is still in the process's environment", geminiauth.EditorKeyVar)
	}
	if v, ok := lookupEnv("GEMINI_API_KEY"); !ok || v != "editor-kept" || getenv("GEMINI_API_KEY") != "editor-kept" {
		t.Errorf("GEMINI_API_KEY reads %q, want the editor's key", v)
	}
	if os.Getenv("GEMINI_API_KEY") != "users-own" {
		t.Error("the user's own GEMINI_API_KEY was changed in the environment")
	}
	a, err := geminiauth.Resolve("", getenv)
	if err != nil || a.Type != geminiauth.GeminiAPIKey || a.Config.APIKey != "editor-kept" {
		t.Errorf("Resolve = %s with key %q, %v: want the Gemini API with the editor's key", a.Type, a.Config.APIKey, err)
	}
}
