package auth

import (
	"os"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// EditorKeyVar is the variable an editor hands gemini-ls the API key in
// that it keeps for the user (VS Code's secret storage): read as
// GEMINI_API_KEY, and never passed to a program gemini-ls starts.
const EditorKeyVar = spawn.EditorKeyVar

// TakeEditorKey is the key an editor handed over in EditorKeyVar, ""
// for none, taken out of the process's environment so that nothing
// started from here on inherits it. A front end calls it once, before it
// starts anything, and reads the key as GEMINI_API_KEY.
func TakeEditorKey() string {
	key := os.Getenv(EditorKeyVar)
	os.Unsetenv(EditorKeyVar)
	return strings.TrimSpace(key)
}
