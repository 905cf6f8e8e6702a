package dialog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// declaredConfirmKinds are the ConfirmKind constants the package's
// sources declare, read from them so that one added is seen here.
func declaredConfirmKinds(t *testing.T) []ConfirmKind {
	t.Helper()
	var kinds []ConfirmKind
	for _, f := range packageFiles(t) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			typed := false // the spec before repeats ConfirmKind implicitly
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				if v.Type != nil || len(v.Values) > 0 {
					id, ok := v.Type.(*ast.Ident)
					typed = ok && id.Name == "ConfirmKind"
				}
				if !typed {
					continue
				}
				for _, val := range v.Values {
					lit, ok := val.(*ast.BasicLit)
					if !ok {
						t.Fatalf("a ConfirmKind constant is not a string literal: %T", val)
					}
					word, _ := strconv.Unquote(lit.Value)
					kinds = append(kinds, ConfirmKind(word))
				}
			}
		}
	}
	return kinds
}

// ConfirmKinds is the closed set: every ConfirmKind declared is listed,
// once, and nothing else is.
func TestConfirmKindsAreListed(t *testing.T) {
	declared := declaredConfirmKinds(t)
	listed := ConfirmKinds()
	for i, k := range listed {
		if slices.Contains(listed[:i], k) {
			t.Errorf("ConfirmKinds lists %q twice", k)
		}
	}
	slices.Sort(declared)
	listed = slices.Clone(listed)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("the package declares the confirmation kinds %q, ConfirmKinds lists %q", declared, listed)
	}
	if len(declared) < 10 {
		t.Errorf("found only %q: the constants moved out of a typed const block?", declared)
	}
}

// A call's Kind is asked about as that kind, and shows as it: the two
// vocabularies agree both ways.
func TestConfirmKindOfAKindShowsAsIt(t *testing.T) {
	for _, k := range []Kind{KindRead, KindSearch, KindEdit, KindExecute, KindFetch, KindThink, KindOther} {
		if got := ConfirmKindOf(k).Shows(); got != k {
			t.Errorf("a %s call is asked about as %q, which shows as %s", k, ConfirmKindOf(k), got)
		}
	}
}

// packageFiles are the package's own Go files, parsed.
func packageFiles(t *testing.T) []*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
