package spawn

import (
	"os"
	"slices"
	"strings"
)

// EditorKeyVar is the variable an editor hands gemini-ls the API key in
// that it keeps for the user (VS Code's secret storage). That key is not
// in the user's own environment, so, unlike a GEMINI_API_KEY the user
// exported, which reaches commands as in Gemini CLI 0.61, it reaches no
// program gemini-ls starts: auth.TakeEditorKey takes it out of the
// process's environment, and every Cmd starts without it.
const EditorKeyVar = "GEMINI_LS_EDITOR_API_KEY"

// withoutEditorKey is env without EditorKeyVar; nil (the process's
// environment) stays nil unless the process's holds it.
func withoutEditorKey(env []string) []string {
	if env == nil {
		if _, ok := os.LookupEnv(EditorKeyVar); !ok {
			return nil
		}
		env = os.Environ()
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return strings.EqualFold(name, EditorKeyVar)
	})
}
