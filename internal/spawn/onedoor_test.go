package spawn_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
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

// door is the one package of gemini-ls that may start a program.
const door = module + "/internal/spawn"

// startersAllowed are the dependencies linked into gemini-ls that can
// start a program, and why each may: none is reached with a program the
// workspace or the model chose.
var startersAllowed = map[string]string{
	// The MCP SDK's CommandTransport starts the *exec.Cmd it is given:
	// gemini-ls gives it one the door admitted (Cmd.Ready).
	"github.com/modelcontextprotocol/go-sdk/mcp": "starts only the Cmd the door admitted",
	// Google's auth library runs the signer of a client certificate that
	// the user's gcloud configuration names, with
	// GOOGLE_API_USE_CLIENT_CERTIFICATE set; and an external account's
	// executable source only with GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1
	// in the environment: the user's credentials, never the workspace's
	// but through a trusted folder's .env, read as 0.61 reads it.
	"github.com/googleapis/enterprise-certificate-proxy/client":     "the user's certificate signer",
	"cloud.google.com/go/auth/internal/transport/cert":              "the user's certificate signer",
	"cloud.google.com/go/auth/credentials/internal/externalaccount": "an executable credential source the user allowed",
	// OpenTelemetry's resource detection reads the host's id on macOS
	// with ioreg, a fixed system program.
	"go.opentelemetry.io/otel/sdk/resource": "macOS's ioreg, for the host's id",
	// mvdan.cc/sh's internal package holds the interpreter's helpers;
	// gemini-ls uses the parser alone, which starts nothing.
	"mvdan.cc/sh/v3/internal": "linked with the parser, whose code starts nothing",
}

// startingCalls are the roads to a new process other than os/exec.
var startingCalls = map[string][]string{
	"os":                       {"StartProcess"},
	"syscall":                  {"ForkExec", "Exec", "StartProcess", "CreateProcess", "CreateProcessAsUser"},
	"golang.org/x/sys/unix":    {"Exec", "ForkExec"},
	"golang.org/x/sys/windows": {"CreateProcess", "CreateProcessAsUser", "ShellExecute"},
}

type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Module     *struct{ Path string }
}

// TestOneDoor: no package of gemini-ls but the door imports os/exec or
// calls any other road to a new process, on any system gemini-ls is
// built for; and the dependencies that can start one are the ones
// startersAllowed names.
func TestOneDoor(t *testing.T) {
	goCmd := platformtest.Tool(t, "go")
	starters := map[string]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, p := range binaryPackages(t, goCmd, goos) {
			if p.Standard {
				continue
			}
			ours := p.Module != nil && p.Module.Path == module
			imports := slices.Contains(p.Imports, "os/exec")
			switch {
			case ours && p.ImportPath == door:
			case ours && imports:
				t.Errorf("%s imports os/exec (GOOS=%s): only %s starts programs; build a spawn.Cmd for a spawn.Reason instead", p.ImportPath, goos, door)
			case ours:
				for _, call := range startingCallsIn(t, p) {
					t.Errorf("%s calls %s (GOOS=%s): only %s starts programs", p.ImportPath, call, goos, door)
				}
			case imports:
				starters[p.ImportPath] = true
				if _, ok := startersAllowed[p.ImportPath]; !ok {
					t.Errorf("the dependency %s imports os/exec (GOOS=%s): say in startersAllowed why what it may start is not the workspace's or the model's, or stop linking it", p.ImportPath, goos)
				}
			}
		}
	}
	for dep := range startersAllowed {
		if !starters[dep] {
			t.Errorf("startersAllowed names %s, which no longer imports os/exec in gemini-ls: take it out", dep)
		}
	}
}

// binaryPackages are the packages linked into gemini-ls built for goos.
func binaryPackages(t *testing.T, goCmd, goos string) []listedPackage {
	t.Helper()
	cmd := exec.Command(goCmd, "list", "-deps", "-json=ImportPath,Dir,Standard,GoFiles,CgoFiles,Imports,Module", module+"/cmd/gemini-ls")
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (GOOS=%s): %v\n%s", goos, err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list (GOOS=%s) listed %d packages: too few to be gemini-ls's", goos, len(pkgs))
	}
	return pkgs
}

// startingCallsIn are the uses in p's files of startingCalls, as
// "pkg.Name" at their position.
func startingCallsIn(t *testing.T, p listedPackage) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	for _, name := range append(slices.Clone(p.GoFiles), p.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]string{} // the name a file gives an import → its path
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if _, ok := startingCalls[path]; !ok {
				continue
			}
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			local[name] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && slices.Contains(startingCalls[local[id.Name]], sel.Sel.Name) {
				found = append(found, fset.Position(sel.Pos()).String()+": "+local[id.Name]+"."+sel.Sel.Name)
			}
			return true
		})
	}
	return found
}
