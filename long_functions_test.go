package geminils_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFunctionLines is the most lines a function may span, from its func
// keyword to its closing brace: past it, a function does several things
// that want names of their own.
const maxFunctionLines = 80

// longFunctionsAllowed are the functions allowed over maxFunctionLines
// ("path name", as longFunctions finds them): data tables, one entry a
// line, which read best whole.
var longFunctionsAllowed = []string{
	"internal/settings/catalogue.go schemaKeys",
	"internal/settings/catalogue.go NotReadKeys",
}

// No function of the repository's Go code (tests and generated files
// aside) spans more than maxFunctionLines, but the allowed ones, which
// still do.
func TestNoLongFunctions(t *testing.T) {
	long, err := longFunctions(".", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		if !slices.Contains(longFunctionsAllowed, f.key()) {
			t.Errorf("%s: %s is %d lines long, over %d: split it into functions that say what each step does", f.path, f.name, f.lines, maxFunctionLines)
		}
	}
	for _, allowed := range longFunctionsAllowed {
		if !slices.ContainsFunc(long, func(f longFunction) bool { return f.key() == allowed }) {
			t.Errorf("%s is allowed over %d lines but no longer is, or is gone: take it off longFunctionsAllowed", allowed, maxFunctionLines)
		}
	}
}

// longFunction is a function over maxFunctionLines.
type longFunction struct {
	path  string // slash-separated, from the repository's root
	name  string // Name, or Type.Name for a method
	lines int
}

func (f longFunction) key() string { return f.path + " " + f.name }

// longFunctions are the functions over maxFunctionLines in the Go files
// under root, but for tests, generated files, the directories skipped
// (slash-separated, from root) and those Go and npm keep apart (hidden
// ones, node_modules).
func longFunctions(root string, skipped []string) ([]longFunction, error) {
	var long []longFunction
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(p)
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || slices.Contains(skipped, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFunctionLines {
				long = append(long, longFunction{path: rel, name: funcName(fn), lines: n})
			}
		}
		return nil
	})
	return long, err
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr: // a generic type's: T[S]
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
