package lsp

import (
	"fmt"
	"maps"
	"strconv"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// An editor that decides workspace trust itself (VS Code's workspace
// trust) says so in initializationOptions.workspaceTrust. It is a
// standing decision about the folders, as a rule of trustedFolders.json
// is, so the build sees it as settings.EditorTrustVariable, which is
// checked against the sandboxes' trail, and not as
// GEMINI_CLI_TRUST_WORKSPACE=true, the user's yes for one run, which is
// not. Handed over this way rather than in gemini-ls's environment, it
// holds for this connection's workspace alone: the commands gemini-ls
// runs do not inherit it.

// workspaceTrustOption is the initializationOptions key.
const workspaceTrustOption = "workspaceTrust"

// editorTrust reads initializationOptions.workspaceTrust: "true" or
// "false", "" when the editor says nothing; a value not a boolean is an
// error.
func editorTrust(opts map[string]any) (string, error) {
	v, ok := opts[workspaceTrustOption]
	if !ok || v == nil {
		return "", nil
	}
	trusted, isBool := v.(bool)
	if !isBool {
		return "", fmt.Errorf("%s must be true or false, not %v", workspaceTrustOption, v)
	}
	return strconv.FormatBool(trusted), nil
}

// withoutEditorTrust is opts without workspaceTrust, which is no setting:
// the settings overlay does not see it.
func withoutEditorTrust(opts map[string]any) map[string]any {
	if _, ok := opts[workspaceTrustOption]; !ok {
		return opts
	}
	out := maps.Clone(opts)
	delete(out, workspaceTrustOption)
	return out
}

// withEditorTrust is the environment getenv and lookup read with the
// editor's trust set in it (settings.EditorTrustVariable); lookup nil
// counts an empty variable as unset, as Options says.
func withEditorTrust(getenv settings.Getenv, lookup settings.LookupEnv, trust string) (settings.Getenv, settings.LookupEnv) {
	if lookup == nil {
		lookup = func(name string) (string, bool) {
			v := getenv(name)
			return v, v != ""
		}
	}
	get := func(name string) string {
		if name == settings.EditorTrustVariable {
			return trust
		}
		return getenv(name)
	}
	look := func(name string) (string, bool) {
		if name == settings.EditorTrustVariable {
			return trust, true
		}
		return lookup(name)
	}
	return get, look
}
