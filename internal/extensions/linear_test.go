package extensions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// An extension's manifest of 1 MiB, however made, is read, its variables
// resolved and its fields decoded in linear time.
func TestManifestIsLinear(t *testing.T) {
	dir := t.TempDir()
	inString := func(unit string) func(int) string {
		return func(size int) string {
			return `{"name": "x", "version": "1", "description": "` + lineartest.Repeat(unit)(size-64) + `"}`
		}
	}
	for name, input := range map[string]func(int) string{
		"unclosed variables": inString("${"),
		"variables":          inString("${extensionPath}"),
		"defaults":           inString("${A:-"),
		"dollars":            inString("$"),
		"environment names":  inString("$A"),
		"escapes":            inString(`\"`),
		"nested arrays":      func(size int) string { return `{"name": "x", "a": ` + lineartest.Repeat("[")(size-64) },
		"many members": func(size int) string {
			return `{"name": "x", "version": "1", ` + lineartest.Repeat(`"a": 1, `)(size-64) + `"b": 1}`
		},
	} {
		lineartest.Linear(t, name, input, func(text string) {
			if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(text), 0o600); err != nil {
				t.Error(err)
				return
			}
			raw, err := readManifest(dir)
			if err != nil {
				return
			}
			vars := Variables{"extensionPath": dir, "/": "/", "pathSeparator": "/", "workspacePath": dir}
			if _, err := resolveVariables(raw, vars, nil, func(string) string { return "value" }); err != nil {
				return
			}
			var m manifest
			decode(raw, &m)
		})
	}
}
