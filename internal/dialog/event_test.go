package dialog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"testing"
)

// markedKinds are the types event.go gives the isEvent marker, read from
// its source so that a kind added there is seen here.
func markedKinds(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "isEvent" || fn.Recv == nil {
			continue
		}
		recv := fn.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		kinds = append(kinds, recv.(*ast.Ident).Name)
	}
	return kinds
}

// Kinds lists one event of every kind event.go declares, each once: a
// kind added without its place in Kinds fails here, and every test that
// holds a consumer of events to Kinds sees the kind it does not handle.
func TestKindsListsEveryKind(t *testing.T) {
	declared := markedKinds(t)
	var listed []string
	for _, e := range Kinds() {
		name := reflect.TypeOf(e).Name()
		if slices.Contains(listed, name) {
			t.Errorf("Kinds lists %s twice", name)
		}
		listed = append(listed, name)
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("event.go declares the kinds %q, Kinds lists %q", declared, listed)
	}
	if len(declared) == 0 {
		t.Error("event.go declares no kinds: the marker method was renamed?")
	}
}
