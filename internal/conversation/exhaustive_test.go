package conversation_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// closedSets are dialog's closed vocabularies a front end must handle
// whole: a switch on one names every member. An event kind is a type
// with dialog's isEvent marker; a confirmation or question kind, a
// constant of its type.
var closedSets = []string{"Event", "ConfirmKind", "QuestionKind"}

// The front ends, cmd and the host handle every member of each closed
// set they switch on: a kind added to dialog fails here at each switch
// that leaves it out, as go/ast's users learn of a new node at theirs.
func TestSwitchesOverClosedSetsAreExhaustive(t *testing.T) {
	g := moduleGraph(t)
	var paths []string
	for path := range g {
		if g.isFrontEnd(path) || within(path, module+"/cmd") || within(path, host) {
			paths = append(paths, path)
		}
	}
	slices.Sort(paths)
	imp := exportImporter(t, paths)
	checked := 0
	for _, p := range listed(t, paths) {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Implicits: map[ast.Node]types.Object{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if missing, set, ok := unhandled(n, info); ok {
					checked++
					if len(missing) > 0 {
						t.Errorf("%s: a switch on dialog.%s leaves out %s", fset.Position(n.Pos()), set, strings.Join(missing, ", "))
					}
				}
				return true
			})
		}
	}
	t.Logf("%d switches on closed sets checked", checked)
	if checked == 0 {
		t.Error("found no switch on a closed set: the check would hold of nothing")
	}
}

// unhandled is what a switch statement n on one of closedSets leaves
// out, and which set; ok is false for any other node.
func unhandled(n ast.Node, info *types.Info) (missing []string, set string, ok bool) {
	switch s := n.(type) {
	case *ast.SwitchStmt:
		if s.Tag == nil {
			return nil, "", false
		}
		named, ok := closedNamed(info.Types[s.Tag].Type)
		if !ok || named.Obj().Name() == "Event" {
			return nil, "", false
		}
		handled := map[string]bool{}
		for _, c := range s.Body.List {
			for _, e := range c.(*ast.CaseClause).List {
				if tv := info.Types[e]; tv.Value != nil {
					handled[tv.Value.ExactString()] = true
				}
			}
		}
		scope := named.Obj().Pkg().Scope()
		for _, name := range scope.Names() {
			if c, isConst := scope.Lookup(name).(*types.Const); isConst && types.Identical(c.Type(), named) && !handled[c.Val().ExactString()] {
				missing = append(missing, name)
			}
		}
		return missing, named.Obj().Name(), true
	case *ast.TypeSwitchStmt:
		var x ast.Expr
		switch a := s.Assign.(type) {
		case *ast.AssignStmt:
			x = a.Rhs[0].(*ast.TypeAssertExpr).X
		case *ast.ExprStmt:
			x = a.X.(*ast.TypeAssertExpr).X
		}
		named, ok := closedNamed(info.Types[x].Type)
		if !ok || named.Obj().Name() != "Event" {
			return nil, "", false
		}
		handled := map[string]bool{}
		for _, c := range s.Body.List {
			for _, e := range c.(*ast.CaseClause).List {
				if tv := info.Types[e]; tv.Type != nil {
					handled[types.TypeString(tv.Type, nil)] = true
				}
			}
		}
		for _, kind := range eventKinds(named) {
			if !handled[types.TypeString(kind, nil)] {
				missing = append(missing, kind.Obj().Name())
			}
		}
		return missing, "Event", true
	}
	return nil, "", false
}

// closedNamed is t when it is one of dialog's closed sets.
func closedNamed(t types.Type) (*types.Named, bool) {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != module+"/internal/dialog" {
		return nil, false
	}
	return named, slices.Contains(closedSets, named.Obj().Name())
}

// eventKinds are dialog's types that implement Event.
func eventKinds(event *types.Named) []*types.Named {
	iface := event.Underlying().(*types.Interface)
	scope := event.Obj().Pkg().Scope()
	var kinds []*types.Named
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.Type() == event {
			continue
		}
		if named, ok := tn.Type().(*types.Named); ok && types.Implements(named, iface) {
			kinds = append(kinds, named)
		}
	}
	return kinds
}

// listedPackage is go list's word on a package, for this system.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
}

func listed(t *testing.T, paths []string) []listedPackage {
	t.Helper()
	cmd := exec.Command(platformtest.Tool(t, "go"), append([]string{"list", "-json=ImportPath,Dir,GoFiles"}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var list []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		list = append(list, p)
	}
	return list
}
