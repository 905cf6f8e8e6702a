package setup

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// gemini-ls starts language servers only in a trusted folder: a server
// runs the project's tools. With a server configured (this test's own
// binary stands for one: only its presence on the path is looked at,
// and the workspace holds a Go file it serves),
// an untrusted folder gets neither code-intelligence tool, a trusted one
// both, and codeIntelligence.enabled false none anywhere.
func TestCodeIntelligenceOnlyInATrustedFolder(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := map[string]any{"servers": map[string]any{"fake": map[string]any{"cmd": []any{self}, "filetypes": []any{"go"}}}}
	declared := func(b *Built) bool {
		_, nav := b.Tools.Registry.Get(tools.NavigateCodeName)
		_, ren := b.Tools.Registry.Get(tools.RenameSymbolName)
		if nav != ren {
			t.Fatalf("navigate_code declared %v, rename_symbol %v", nav, ren)
		}
		return nav
	}

	home, root := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n") // a file the server serves
	b, _ := buildWith(t, home, root, map[string]any{"codeIntelligence": server}, nil, &Told{})
	if declared(b) {
		t.Error("an untrusted folder was given the language servers gemini-ls starts")
	}

	writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+strconv.Quote(root)+`: "TRUST_FOLDER"}`)
	b, _ = buildWith(t, home, root, map[string]any{"codeIntelligence": server}, nil, &Told{})
	if !declared(b) {
		t.Error("a trusted folder with a language server was not given the tools")
	}

	off := map[string]any{"enabled": false, "servers": server["servers"]}
	b, _ = buildWith(t, home, root, map[string]any{"codeIntelligence": off}, nil, &Told{})
	if declared(b) {
		t.Error("codeIntelligence.enabled false still declared the tools")
	}
}
