package conversation_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

const (
	module = "github.com/gemini-ls/gemini-ls"
	host   = module + "/internal/conversation"
)

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

// The module's packages keep the guide's direction (doc.go): cmd → front
// ends → conversation → setup → agent → tools → dialog → workspace, and
// a front end, any package outside the host that imports it, imports
// neither agent, setup, nor the tools (cmd: the tool set), nor a package
// under one; neither directly nor through packages in no layer (hooks
// imports agent). Who is a front end is read from the imports, not
// listed, so a new one is held to the rule from its first file.
func TestLayering(t *testing.T) {
	g := moduleGraph(t)
	for _, l := range layers() {
		held := g.layerPackages(l)
		if len(held) == 0 {
			t.Errorf("no package of the module is in the %s layer: the rule would hold of nothing there", l.name)
		}
		t.Logf("%s: %s", l.name, strings.Join(held, ", "))
	}
	for _, v := range g.layering() {
		t.Error(g.describe(v))
	}
}

// pkg is one package of the module: its non-test Go files, and what they
// import, on any of the systems gemini-ls is built for.
type pkg struct {
	files   []string
	imports []string
}

// graph is the module's packages by import path. A package outside the
// module (the standard library's, a dependency's) is not in it.
type graph map[string]*pkg

// systems are those gemini-ls is built for: a file of one alone (a
// _windows.go) may import what the others' do not.
var systems = []string{"linux", "darwin", "windows"}

// moduleGraph reads the module's packages from go list, once per system.
func moduleGraph(t *testing.T) graph {
	t.Helper()
	goTool := platformtest.Tool(t, "go")
	g := graph{}
	for _, goos := range systems {
		cmd := exec.Command(goTool, "list", "-json=ImportPath,Dir,GoFiles,CgoFiles,Imports", module+"/...")
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, stderr.String())
		}
		if err := g.addListed(out); err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
	}
	return g
}

// addListed adds go list -json's packages to g, each file and import once.
func (g graph) addListed(out []byte) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var listed struct {
			ImportPath, Dir            string
			GoFiles, CgoFiles, Imports []string
		}
		switch err := dec.Decode(&listed); {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
		p := g[listed.ImportPath]
		if p == nil {
			p = &pkg{}
			g[listed.ImportPath] = p
		}
		for _, name := range append(listed.GoFiles, listed.CgoFiles...) {
			p.files = appendNew(p.files, filepath.Join(listed.Dir, name))
		}
		for _, path := range listed.Imports {
			p.imports = appendNew(p.imports, path)
		}
	}
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// layer is a rank of the direction: a package may import one of its own
// layer or below, never above.
type layer struct {
	name  string
	holds func(g graph, path string) bool
}

// layers are in the direction's order; a package is in the first that
// holds it (cmd/gemini-ls imports the host too, and is cmd), or in none.
func layers() []layer {
	return []layer{
		{"cmd", under(module + "/cmd")},
		{"front end", graph.isFrontEnd},
		{"conversation", under(host)},
		{"setup", under(module + "/internal/setup")},
		{"agent", under(module + "/internal/agent")},
		{"tools", under(module + "/internal/tools")},
		{"dialog", under(module + "/internal/dialog")},
		{"workspace", under(module + "/internal/workspace")},
	}
}

func under(root string) func(graph, string) bool {
	return func(_ graph, path string) bool { return within(path, root) }
}

func within(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

// isFrontEnd says whether path drives conversations: it imports the host
// and is none of the host's own packages.
func (g graph) isFrontEnd(path string) bool {
	return !within(path, host) && slices.Contains(g[path].imports, host)
}

// bannedToFrontEnds says whether target is what front end path reaches
// only through the host: agent, setup, the tools, or a package under
// one. The ports a front end implements for the tools (a terminal,
// diagnostics) are dialog's, so it needs no tools package for them. cmd,
// which wires the process, may reach the tools but for the tool set:
// its mcp commands (manage) work on the MCP servers' settings.
func bannedToFrontEnds(path, target string) bool {
	switch {
	case within(target, module+"/internal/agent"), within(target, module+"/internal/setup"), within(target, module+"/internal/tools/toolset"):
		return true
	case within(target, module+"/internal/tools"):
		return !within(path, module+"/cmd")
	}
	return false
}

const (
	frontEndWhy = "it imports the conversation host, so it is a front end, and front ends reach the agent, setup and the tools through conversation, and speak dialog's words"
	direction   = "cmd → front ends → conversation → setup → agent → tools → dialog → workspace"
)

// rank is path's layer's index in layers, or -1 for a package in none.
func (g graph) rank(ls []layer, path string) int {
	return slices.IndexFunc(ls, func(l layer) bool { return l.holds(g, path) })
}

func (g graph) layerPackages(l layer) []string {
	var paths []string
	for _, path := range slices.Sorted(maps.Keys(g)) {
		if l.holds(g, path) {
			paths = append(paths, short(path))
		}
	}
	return paths
}

// violation is pkg importing imp, which is target or leads to it through
// packages in no layer.
type violation struct {
	pkg, imp, target string
	why              string
}

// layering is every import of g that breaks the direction or takes a
// front end to what it may not import, in the order of the packages' paths.
func (g graph) layering() []violation {
	ls := layers()
	var found []violation
	for _, path := range slices.Sorted(maps.Keys(g)) {
		rank, frontEnd := g.rank(ls, path), g.isFrontEnd(path)
		g.reach(path, ls, func(imp, target string) {
			if frontEnd && bannedToFrontEnds(path, target) {
				found = append(found, violation{path, imp, target, frontEndWhy})
			}
			if above := g.rank(ls, target); rank >= 0 && above >= 0 && above < rank {
				found = append(found, violation{path, imp, target,
					fmt.Sprintf("%s is above %s in %s", ls[above].name, ls[rank].name, direction)})
			}
		})
	}
	return found
}

// reach calls visit with each package of the module that path reaches
// through each of its imports: the import itself and, while it passes
// packages in no layer, what they import. A package in a layer answers
// for its own imports, so the walk stops there: the host imports the
// agent, and a front end that imports the host does not reach it.
func (g graph) reach(path string, ls []layer, visit func(imp, target string)) {
	for _, imp := range g[path].imports {
		seen := map[string]bool{}
		next := []string{imp}
		for len(next) > 0 {
			target := next[0]
			next = next[1:]
			if seen[target] || g[target] == nil {
				continue
			}
			seen[target] = true
			visit(imp, target)
			if g.rank(ls, target) < 0 {
				next = append(next, g[target].imports...)
			}
		}
	}
}

// describe words v for a test's failure, naming the file that imports.
func (g graph) describe(v violation) string {
	via := ""
	if v.target != v.imp {
		via = ", which leads to " + short(v.target)
	}
	return fmt.Sprintf("%s imports %s%s: %s", g.importingFile(v.pkg, v.imp), short(v.imp), via, v.why)
}

// importingFile is the file of pkg that imports imp, or pkg where none is
// known (a graph a test made).
func (g graph) importingFile(pkgPath, imp string) string {
	for _, name := range g[pkgPath].files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if path, _ := strconv.Unquote(spec.Path.Value); path == imp {
				return filepath.Join(short(pkgPath), filepath.Base(name))
			}
		}
	}
	return short(pkgPath)
}

func short(path string) string { return strings.TrimPrefix(path, module+"/") }

// The rule rejects what it is there to reject, in a graph shaped as the
// module's with one package planted in it.
func TestLayeringRejects(t *testing.T) {
	for _, c := range []struct {
		name    string
		planted map[string][]string
		want    []string
	}{{
		name:    "nothing planted",
		planted: nil,
		want:    nil,
	}, {
		name:    "a 4th front end importing the agent",
		planted: map[string][]string{"internal/planted": {"internal/conversation", "internal/agent"}},
		want:    []string{"internal/planted imports internal/agent: it imports the conversation host, so it is a front end"},
	}, {
		name:    "a front end importing a package under the agent, setup and the tool set",
		planted: map[string][]string{"internal/planted": {"internal/conversation", "internal/agent/sessionstore", "internal/setup", "internal/tools/toolset"}},
		want: []string{
			"internal/planted imports internal/agent/sessionstore: it imports the conversation host",
			"internal/planted imports internal/setup: it imports the conversation host",
			"internal/planted imports internal/tools/toolset: it imports the conversation host",
		},
	}, {
		name:    "a front end importing the tools, or a package under them",
		planted: map[string][]string{"internal/planted": {"internal/conversation", "internal/tools", "internal/tools/background"}},
		want: []string{
			"internal/planted imports internal/tools: it imports the conversation host",
			"internal/planted imports internal/tools/background: it imports the conversation host",
		},
	}, {
		name:    "cmd importing the tools, and the tool set",
		planted: map[string][]string{"cmd/planted": {"internal/conversation", "internal/tools", "internal/tools/toolset"}},
		want:    []string{"cmd/planted imports internal/tools/toolset: it imports the conversation host"},
	}, {
		name:    "a front end reaching the agent through a package in no layer",
		planted: map[string][]string{"internal/planted": {"internal/conversation", "internal/hooks"}},
		want:    []string{"internal/planted imports internal/hooks, which leads to internal/agent: it imports the conversation host"},
	}, {
		name:    "the tools importing the agent",
		planted: map[string][]string{"internal/tools/planted": {"internal/agent"}},
		want:    []string{"internal/tools/planted imports internal/agent: agent is above tools"},
	}, {
		name:    "the workspace reaching dialog through a package in no layer",
		planted: map[string][]string{"internal/workspace/planted": {"internal/safefile", "internal/settings"}, "internal/settings": {"internal/dialog"}},
		want:    []string{"internal/workspace/planted imports internal/settings, which leads to internal/dialog: dialog is above workspace"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			g := shapedGraph()
			for path, imports := range c.planted {
				g[module+"/"+path] = &pkg{imports: modulePaths(imports)}
			}
			var got []string
			for _, v := range g.layering() {
				got = append(got, g.describe(v))
			}
			if len(got) != len(c.want) {
				t.Fatalf("violations %q, want %d like %q", got, len(c.want), c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("violation %q, want it to start %q", got[i], c.want[i])
				}
			}
		})
	}
}

// shapedGraph is the module's layering in small: three front ends, the
// host and the layers below it, and hooks, in no layer, importing agent.
func shapedGraph() graph {
	g := graph{}
	for path, imports := range map[string][]string{
		"cmd/gemini-ls":                 {"internal/conversation", "internal/lsp", "internal/acp", "internal/tools"},
		"internal/lsp":                  {"internal/conversation", "internal/conversation/builtin", "internal/dialog"},
		"internal/acp":                  {"internal/conversation", "internal/dialog", "internal/workspace"},
		"internal/conversation":         {"internal/conversation/builtin", "internal/setup", "internal/agent", "internal/tools/toolset"},
		"internal/conversation/builtin": {"internal/setup", "internal/agent"},
		"internal/setup":                {"internal/agent", "internal/hooks", "internal/tools/toolset"},
		"internal/hooks":                {"internal/agent", "internal/settings"},
		"internal/agent":                {"internal/agent/sessionstore", "internal/tools", "internal/dialog"},
		"internal/agent/sessionstore":   {"internal/settings"},
		"internal/tools/toolset":        {"internal/tools"},
		"internal/tools":                {"internal/tools/background", "internal/dialog", "internal/workspace"},
		"internal/tools/background":     {"internal/dialog"},
		"internal/dialog":               {"internal/settings", "internal/workspace"},
		"internal/settings":             {"internal/safefile"},
		"internal/workspace":            {"internal/safefile"},
		"internal/safefile":             nil,
	} {
		g[module+"/"+path] = &pkg{imports: modulePaths(imports)}
	}
	return g
}

func modulePaths(short []string) []string {
	var paths []string
	for _, s := range short {
		paths = append(paths, module+"/"+s)
	}
	return paths
}

// Nor can they reach the agent, the build or its tools through what the
// host hands them: no exported function, method, field or callback of
// conversation's packages they import (nor of dialog) gives one of
// unreachable to its caller, or to the front end's own implementation of
// an interface the host calls.
func TestFrontEndsCannotReachTheAgent(t *testing.T) {
	roots := moduleGraph(t).handedToFrontEnds()
	if len(roots) == 0 {
		t.Fatal("no package of the module imports the conversation host: there is no front end to check")
	}
	imp := exportImporter(t, roots)
	w := &reach{forbidden: unreachable, seen: map[reachKey]bool{}}
	for _, path := range roots {
		typed, err := imp.Import(path)
		if err != nil {
			t.Fatal(err)
		}
		scope := typed.Scope()
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

// handedToFrontEnds are the host's packages and dialog that front ends
// import: what the host hands them comes through these.
func (g graph) handedToFrontEnds() []string {
	var roots []string
	for path, p := range g {
		if !g.isFrontEnd(path) {
			continue
		}
		for _, imp := range p.imports {
			if within(imp, host) || imp == module+"/internal/dialog" {
				roots = appendNew(roots, imp)
			}
		}
	}
	slices.Sort(roots)
	return roots
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
