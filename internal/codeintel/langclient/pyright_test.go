package langclient

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
)

// pythonProject is a package whose hello is defined in one module and
// called from two.
var pythonProject = map[string]string{
	"pyproject.toml":    "[project]\nname = \"greet\"\nversion = \"0\"\n",
	"greet/__init__.py": "",
	"greet/words.py": `def hello(name: str) -> str:
    """Says hello to name."""
    return "hello, " + name


def shout(name: str) -> str:
    return hello(name).upper()
`,
	"main.py": `from greet.words import hello

print(hello("world"))
`,
}

// TestPyright asks the real pyright-langserver for a definition across
// modules and references, and renames a function across files.
func TestPyright(t *testing.T) {
	langserver(t, "pyright-langserver")
	root := writeTree(t, pythonProject)
	m := newManager(t, root, nil)
	ctx := context.Background()
	mainPy := filepath.Join(root, "main.py")
	wordsPy := filepath.Join(root, "greet", "words.py")

	ask := func(t *testing.T, req codeintel.Request) codeintel.Answer {
		t.Helper()
		a, err := m.Ask(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
		if a.Source != "pyright" {
			t.Errorf("Source = %q, want pyright", a.Source)
		}
		return a
	}

	t.Run("definition", func(t *testing.T) {
		got := locations(t, root, ask(t, at(t, codeintel.Definition, mainPy, "print(hello", "hello")).Result)
		if want := []string{lineOf(t, root, "greet/words.py", "def hello")}; !slices.Equal(got, want) {
			t.Errorf("definition of hello = %v, want %v", got, want)
		}
	})

	t.Run("references", func(t *testing.T) {
		got := locations(t, root, ask(t, at(t, codeintel.References, wordsPy, "def hello", "hello")).Result)
		slices.Sort(got)
		got = slices.Compact(got)
		want := []string{
			lineOf(t, root, "greet/words.py", "def hello"),
			lineOf(t, root, "greet/words.py", "return hello(name)"),
			lineOf(t, root, "main.py", "import hello"),
			lineOf(t, root, "main.py", "print(hello"),
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("references of hello = %v, want %v", got, want)
		}
	})

	t.Run("rename", func(t *testing.T) {
		req := at(t, codeintel.Rename, wordsPy, "def hello", "hello")
		req.NewName = "salute"
		changed := applyWorkspaceEdit(t, ask(t, req).Result)
		if len(changed) != 2 {
			t.Errorf("the rename changed %v, want words.py and main.py", changed)
		}
		for _, path := range []string{mainPy, wordsPy} {
			data, _ := os.ReadFile(path)
			if strings.Contains(string(data), "hello(") || !strings.Contains(string(data), "salute(") {
				t.Errorf("%s after the rename:\n%s", path, data)
			}
		}
	})
}
