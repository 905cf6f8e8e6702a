package conversation_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

const module = "github.com/gemini-ls/gemini-ls"

// frontEnds are the packages that drive conversations through the host.
var frontEnds = []string{"lsp", "acp", "../cmd/gemini-ls"}

// unreachable are what only setup and conversation hold: the agent, its
// sessions, the build and its tools. A front end reads what it needs of
// them through the host and a conversation.Build.
var unreachable = []string{
	module + "/internal/agent.Agent",
	module + "/internal/agent.Session",
	module + "/internal/setup.Built",
	module + "/internal/tools/toolset.Set",
	module + "/internal/tools.Registry",
}

// frontEndImports are the packages the front ends' files (tests aside)
// import, each with a file that imports it.
func frontEndImports(t *testing.T) map[string]string {
	t.Helper()
	imports := map[string]string{}
	for _, dir := range frontEnds {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
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
				imports[path] = name
			}
		}
	}
	return imports
}

// The front ends talk to the host, never to the agent: no file of theirs
// (tests aside) imports agent or a package under it, setup, or the tool
// set. The words they share with the agent are dialog's.
func TestFrontEndsDoNotImportAgent(t *testing.T) {
	for path, file := range frontEndImports(t) {
		for _, banned := range []string{module + "/internal/agent", module + "/internal/setup", module + "/internal/tools/toolset"} {
			if path == banned || strings.HasPrefix(path, banned+"/") {
				t.Errorf("%s imports %s: front ends reach the agent through conversation, and speak dialog's words", file, path)
			}
		}
	}
}

// Nor can they reach the agent, the build or its tools through what the
// host hands them: no exported function, method, field or callback of
// conversation's packages they import (nor of dialog) gives one of
// unreachable to its caller, or to the front end's own implementation of
// an interface the host calls.
func TestFrontEndsCannotReachTheAgent(t *testing.T) {
	var roots []string
	for path := range frontEndImports(t) {
		if path == module+"/internal/dialog" || path == module+"/internal/conversation" || strings.HasPrefix(path, module+"/internal/conversation/") {
			roots = append(roots, path)
		}
	}
	slices.Sort(roots)
	if !slices.Contains(roots, module+"/internal/conversation") {
		t.Fatalf("the front ends import %q, not conversation", roots)
	}
	imp := exportImporter(t, roots)
	w := &reach{forbidden: unreachable, seen: map[reachKey]bool{}}
	for _, path := range roots {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatal(err)
		}
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			via := path + "." + name
			switch obj := obj.(type) {
			case *types.Func, *types.Var:
				w.walk(obj.Type(), true, via)
			case *types.TypeName:
				// A front end may make a value of any exported type:
				// what it fills in is its own, what methods give it is not.
				if named, ok := types.Unalias(obj.Type()).(*types.Named); ok {
					w.methods(named, via)
				}
			}
		}
	}
	for _, leak := range w.leaks {
		t.Errorf("a front end reaches %s", leak)
	}
}

// exportImporter type-checks packages from their compiled export data,
// which go list builds for roots and everything they import.
func exportImporter(t *testing.T, roots []string) types.Importer {
	t.Helper()
	goTool := platformtest.Tool(t, "go")
	cmd := exec.Command(goTool, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, roots...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		if path, file, ok := strings.Cut(lines.Text(), "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// reach walks types as a front end meets them. Positive: the front end
// is given a value of the type (a result, a field of one, a parameter of
// a callback it supplies); negative: it gives one (a parameter, a field
// of a value it makes). A forbidden type met positively is a leak.
type reach struct {
	forbidden []string
	seen      map[reachKey]bool
	leaks     []string
}

type reachKey struct {
	typ      string
	positive bool
}

func (w *reach) walk(t types.Type, positive bool, via string) {
	key := reachKey{types.TypeString(t, nil), positive}
	if w.seen[key] {
		return
	}
	w.seen[key] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		w.named(t, positive, via)
	case *types.Pointer:
		w.walk(t.Elem(), positive, via)
	case *types.Slice:
		w.walk(t.Elem(), positive, via)
	case *types.Array:
		w.walk(t.Elem(), positive, via)
	case *types.Chan:
		w.walk(t.Elem(), positive, via)
	case *types.Map:
		w.walk(t.Key(), positive, via)
		w.walk(t.Elem(), positive, via)
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() {
				w.walk(f.Type(), positive, via+"."+f.Name())
			}
		}
	case *types.Signature:
		for p := range t.Params().Variables() {
			w.walk(p.Type(), !positive, via+"("+p.Name()+")")
		}
		for r := range t.Results().Variables() {
			w.walk(r.Type(), positive, via+" → "+types.TypeString(r.Type(), shortQualifier))
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				w.walk(m.Type(), positive, via+"."+m.Name())
			}
		}
	}
}

// named walks a named type: met positively, a forbidden one is a leak,
// and its methods give the front end what they return.
func (w *reach) named(t *types.Named, positive bool, via string) {
	obj := t.Obj()
	if obj.Pkg() != nil && positive && slices.Contains(w.forbidden, obj.Pkg().Path()+"."+obj.Name()) {
		w.leaks = append(w.leaks, fmt.Sprintf("%s.%s through %s", obj.Pkg().Name(), obj.Name(), via))
		return
	}
	if obj.Pkg() == nil || !strings.HasPrefix(obj.Pkg().Path(), module) {
		return // a library's types hold none of ours
	}
	if positive {
		w.methods(t, via)
	}
	w.walk(t.Underlying(), positive, via)
}

// methods walks what t's exported methods give their caller; an
// interface's are walked with the interface, by who implements it.
func (w *reach) methods(t *types.Named, via string) {
	if _, isInterface := t.Underlying().(*types.Interface); isInterface {
		return
	}
	methods := types.NewMethodSet(types.NewPointer(t))
	for sel := range methods.Methods() {
		if sel.Obj().Exported() {
			w.walk(sel.Type(), true, via+"."+sel.Obj().Name())
		}
	}
}

func shortQualifier(p *types.Package) string { return p.Name() }

// A session has one gate, the host's (Turns), and so one busy wording:
// no other Go file of the module (tests aside) makes a dialog.BusyError.
func TestOneBusyGate(t *testing.T) {
	var makers []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "..":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			switch typ := lit.Type.(type) {
			case *ast.SelectorExpr:
				if typ.Sel.Name == "BusyError" {
					makers = append(makers, path)
				}
			case *ast.Ident:
				if typ.Name == "BusyError" && f.Name.Name == "dialog" {
					makers = append(makers, path)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join("..", "conversation", "turns.go")}; !slices.Equal(makers, want) {
		t.Errorf("dialog.BusyError is made in %q, want only in %q: the host's gate is the one a session has", makers, want)
	}
}
