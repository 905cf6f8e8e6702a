package configfiles_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/protected"
)

// moduleRoot is the directory of go.mod above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// A loader takes the path of a declared directory of gemini-ls's own
// configuration from this package: no code elsewhere spells .gemini or
// .agents as a name (a literal of it alone, compared or joined) or as a
// component of a literal it joins into a path. One that did would read a
// place the guards may not know of, as .agents/mcp_config.json was read
// last round.
func TestNoLoaderSpellsAConfigurationDirectory(t *testing.T) {
	dirs := []string{configfiles.Gemini, configfiles.Agents}
	root := moduleRoot(t)
	own := filepath.Join(root, "internal", "configfiles")
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && (p == own || strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, spelled(fset, f, dirs)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: take the path from internal/configfiles", f)
	}
}

// spelled are the places in f that spell one of dirs as a name: a string
// literal of it alone, or a literal argument of a Join with it as a
// component.
func spelled(fset *token.FileSet, f *ast.File, dirs []string) []string {
	var out []string
	report := func(lit *ast.BasicLit, why string) {
		out = append(out, fset.Position(lit.Pos()).String()+": "+lit.Value+" "+why)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if v, ok := literal(n); ok && slices.Contains(dirs, v) {
				report(n, "names a configuration directory")
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Join" {
				return true
			}
			for _, arg := range n.Args {
				lit, ok := arg.(*ast.BasicLit)
				if !ok {
					continue
				}
				v, _ := literal(lit)
				if slices.Contains(dirs, v) {
					continue // a name alone: the literal's own report
				}
				if slices.ContainsFunc(strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '\\' }), func(c string) bool { return slices.Contains(dirs, c) }) {
					report(lit, "is joined into a path in a configuration directory")
				}
			}
		}
		return true
	})
	return out
}

func literal(lit *ast.BasicLit) (string, bool) {
	if lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil
}

// The scan finds what it is for: a literal name, and a joined component.
func TestSpelledFindsALoadersOwnPath(t *testing.T) {
	src := `package x
import "path/filepath"
func a(root string) string { return filepath.Join(root, ".agents", "mcp_config.json") }
func b(root string) string { return filepath.Join(root, ".gemini/settings.json") }
func c(name string) bool { return name == ".gemini" }
func d() string { return "set it in ~/.gemini/settings.json" }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := spelled(fset, f, []string{configfiles.Gemini, configfiles.Agents})
	if len(got) != 3 || !strings.Contains(got[0], `".agents"`) || !strings.Contains(got[1], `".gemini/settings.json"`) || !strings.Contains(got[2], "x.go:5") {
		t.Errorf("found %q, want the two joins and the comparison, not the sentence", got)
	}
}

// Every path a function of the package returns lies in the declaration
// it names, and so is protected; every declaration is.
func TestEveryPathLiesInADeclaration(t *testing.T) {
	dir := t.TempDir()
	paths := []string{
		configfiles.GeminiDir(dir), configfiles.AgentsDir(dir), configfiles.ProjectSettings(dir),
		configfiles.AntigravityMCP(dir), configfiles.AgentsRules(dir), configfiles.AgentsHooks(dir),
		configfiles.In(dir, "policies/x.toml"), filepath.Join(dir, configfiles.Env), filepath.Join(dir, configfiles.GeminiIgnore),
	}
	paths = append(paths, configfiles.Skills(dir)...)
	for _, f := range configfiles.Names() {
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(f.Name), "x"))
	}
	for _, f := range configfiles.Endings() {
		ending, _ := f.Ending()
		paths = append(paths, filepath.Join(dir, "x"+ending))
	}
	set := protected.New()
	for _, p := range paths {
		if set.Why(p) == "" {
			t.Errorf("%s is not protected", p)
		}
	}
}

// What a later session in a folder reads of its own is declared ours:
// the trail checks each.
func TestTheFolderConfigurationIsOurs(t *testing.T) {
	want := []string{configfiles.Gemini, configfiles.Agents, configfiles.Env, configfiles.GeminiIgnore}
	if got := configfiles.Folder(); !slices.Equal(got, want) {
		t.Errorf("Folder() = %q, want %q", got, want)
	}
}
