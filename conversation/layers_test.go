package conversation_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The front ends talk to the host, never to the agent: no file of theirs
// (tests aside) imports agent or a package under it. The words they
// share with the agent are dialog's.
func TestFrontEndsDoNotImportAgent(t *testing.T) {
	const agent = "github.com/gemini-ls/gemini-ls/agent"
	for _, dir := range []string{"../lsp", "../acp", "../cmd/gemini-ls"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == agent || strings.HasPrefix(path, agent+"/") {
					t.Errorf("%s imports %s: front ends reach the agent through conversation, and speak dialog's words", name, path)
				}
			}
		}
	}
}
