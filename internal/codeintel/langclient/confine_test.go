package langclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// hostileTS is a TypeScript project that ships its own TypeScript,
// whose tsserver.js, run, writes ran.txt at the project's root: what
// typescript-language-server runs unless told otherwise.
var hostileTS = map[string]string{
	"tsconfig.json":                        `{"compilerOptions": {"strict": true}}`,
	"answer.ts":                            "export const answer = 42;\n",
	"main.ts":                              "import { answer } from \"./answer\";\nconsole.log(answer);\n",
	"node_modules/typescript/package.json": `{"name": "typescript", "version": "5.9.3"}`,
	"node_modules/typescript/lib/tsserver.js": `require("fs").writeFileSync(require("path").join(__dirname, "../../../ran.txt"), "ran");` + "\n",
}

// managerWithDoor is a Manager of root's workspace whose servers start
// through a door of that workspace's, no yes given.
func managerWithDoor(t *testing.T, root string, rules spawn.Rules) *Manager {
	t.Helper()
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rules.Roots = ws.Roots
	m := New(ws, nil, spawn.NewDoor(rules), nil)
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func ran(t *testing.T, root string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(root, "ran.txt"))
	return err == nil
}

// typescript-language-server is told to run the TypeScript installed
// beside it: a project that ships its own has nothing of it run, and
// nobody is asked, since the server then runs none of the project's
// code; the hover comes from the user's TypeScript.
func TestTypeScriptRunsTheUsersTypeScriptNotTheWorkspaces(t *testing.T) {
	langserver(t, "typescript-language-server")
	root := writeTree(t, hostileTS)
	m := managerWithDoor(t, root, spawn.Rules{})
	a, err := m.Ask(context.Background(), at(t, codeintel.Hover, filepath.Join(root, "answer.ts"), "export const", "answer"))
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	if text, _ := codeintel.HoverText(a.Result); !strings.Contains(text, "42") || a.Source != "typescript-language-server" {
		t.Errorf("hover = %q from %s, want the constant's 42 from typescript-language-server", text, a.Source)
	}
	if ran(t, root) {
		t.Error("the workspace's node_modules/typescript/lib/tsserver.js ran")
	}
}

// A typescript-language-server with no TypeScript of its own would run
// the workspace's: it is not started without the user's yes, and then
// only after they were asked, once, what it may run.
func TestTypeScriptWithoutItsOwnStartsOnlyWithAYes(t *testing.T) {
	alone := tsServerAlone(t)
	t.Setenv("PATH", filepath.Dir(alone)+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := writeTree(t, hostileTS)
	m := managerWithDoor(t, root, spawn.Rules{})
	req := at(t, codeintel.Hover, filepath.Join(root, "answer.ts"), "export const", "answer")

	var refused *spawn.RefusedError
	if _, err := m.Ask(context.Background(), req); !errors.As(err, &refused) || !strings.Contains(err.Error(), "the workspace's own TypeScript") {
		t.Fatalf("with nobody to ask: %v, want a refusal saying what it would run", err)
	}
	if ran(t, root) {
		t.Fatal("the workspace's tsserver.js ran with nobody asked")
	}
	var asked []string
	req.Ask = func(_ context.Context, q spawn.Question) (bool, error) {
		asked = append(asked, q.Title+" "+q.Details)
		return false, nil
	}
	if _, err := m.Ask(context.Background(), req); !errors.As(err, &refused) {
		t.Fatalf("after a no: %v", err)
	}
	if _, err := m.Ask(context.Background(), req); !errors.As(err, &refused) || !strings.Contains(err.Error(), "declined") {
		t.Fatalf("again after a no: %v", err)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Start typescript-language-server?") || !strings.Contains(asked[0], "node_modules/typescript") {
		t.Errorf("asked %q, want once, naming the workspace's TypeScript", asked)
	}
	if ran(t, root) {
		t.Error("the workspace's tsserver.js ran after a no")
	}
}

// tsServerAlone is the pinned typescript-language-server copied where
// no TypeScript lies beside it, as one installed without its peer.
func tsServerAlone(t *testing.T) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(langserver(t, "typescript-language-server"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Dir(filepath.Dir(real)) // node_modules/typescript-language-server
	dir := filepath.Join(t.TempDir(), "node_modules", "typescript-language-server")
	for _, name := range []string{"package.json", "lib/cli.mjs"} {
		data, err := os.ReadFile(filepath.Join(pkg, name))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(filepath.Dir(filepath.Dir(dir)), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(bin, "typescript-language-server")
	if err := os.Symlink(filepath.Join(dir, "lib", "cli.mjs"), link); err != nil {
		t.Fatal(err)
	}
	return link
}

// pyright runs a Python interpreter to find the project's packages. An
// activated virtual environment puts the workspace's first on PATH; the
// interpreter pyright is given, and the PATH it runs with, are outside
// the workspace, so the project's .venv/bin/python3 never runs.
func TestPyrightRunsNoInterpreterOfTheWorkspace(t *testing.T) {
	langserver(t, "pyright-langserver")
	files := map[string]string{}
	for name, text := range pythonProject {
		files[name] = text
	}
	planted := "#!/bin/sh\necho ran > \"$(dirname \"$0\")/../../ran.txt\"\nexit 1\n"
	files[".venv/bin/python3"], files[".venv/bin/python"] = planted, planted
	root := writeTree(t, files)
	for _, name := range []string{"python3", "python"} {
		if err := os.Chmod(filepath.Join(root, ".venv", "bin", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Join(root, ".venv", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	m := managerWithDoor(t, root, spawn.Rules{})
	if _, err := m.Ask(context.Background(), at(t, codeintel.Definition, filepath.Join(root, "main.py"), "print(hello", "hello")); err != nil {
		t.Fatalf("definition: %v", err)
	}
	if ran(t, root) {
		t.Error("pyright ran the workspace's .venv/bin/python3")
	}
}

// Under a sandbox a language server runs in it like any command: what
// it writes outside the workspace does not reach the host, and it still
// answers.
func TestLanguageServersRunInTheSandbox(t *testing.T) {
	sandboxtest.NeedBubblewrap(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir() // hidden in the sandbox by its private /tmp
	for _, sandboxed := range []bool{false, true} {
		root := writeTree(t, map[string]string{"fake.root": "", "a.fake": "one\n"})
		// The fake, a copy of this test binary in the workspace, where
		// the sandbox can run it; a script that first writes outside.
		fake := filepath.Join(root, "fakeserver")
		copyFile(t, exe, fake)
		script := filepath.Join(root, "server.sh")
		owned := filepath.Join(outside, "owned")
		body := "#!/bin/sh\necho owned > " + owned + "\nexec " + fake + "\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(fakeModeEnv, fakeOK)
		var rules spawn.Rules
		if sandboxed {
			sb, err := sandbox.New(sandbox.Config{Command: sandbox.Bubblewrap, Why: "test"}, func() []string { return []string{root} }, t.TempDir(), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sb.Close() })
			rules.Sandbox = sb
		}
		ws, err := workspace.New([]string{root}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rules.Roots = ws.Roots
		m := New(ws, map[string]ServerConfig{"fake": {Cmd: []string{script}, Filetypes: []string{"fake"}, RootMarkers: []string{"fake.root"}}}, spawn.NewDoor(rules), nil)
		allowAll(t, m)
		if _, err := m.Ask(context.Background(), request(codeintel.Hover, filepath.Join(root, "a.fake"), "one\n")); err != nil {
			t.Fatalf("sandboxed %v: %v", sandboxed, err)
		}
		m.Close(context.Background())
		_, err = os.Stat(owned)
		if wrote := err == nil; wrote == sandboxed {
			t.Errorf("sandboxed %v: the server wrote outside the workspace: %v", sandboxed, wrote)
		}
		os.Remove(owned)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
