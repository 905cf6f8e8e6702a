package langclient

import (
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/spawn"
)

// A language server gemini-ls starts is a program that may run the
// workspace's code: a workspace's own TypeScript, build scripts and
// procedural macros, an interpreter found in the project. Each built-in
// server says how it is kept from doing so (confine), and the door
// (package spawn) starts one that is not only with the user's yes.

// launch is how one server is started: why the door may start it, and
// what it is told so that it runs nothing of the workspace's.
type launch struct {
	why spawn.LanguageServer
	// initOptions are initialize's initializationOptions; nil for none.
	initOptions map[string]any
	// pythonPath, set, is the interpreter a Python server is told to use
	// (workspace/configuration's python.pythonPath).
	pythonPath string
}

// confinement says how a built-in server is kept from running the
// workspace's code, given where its command was found and the door that
// starts it (which knows the workspace's roots and the PATH it gives
// the server): the launch, Confined or with the Risk the user is asked
// about.
type confinement func(cmdPath string, door *spawn.Door) launch

// launchOf is how spec's server, its command found at cmdPath, starts.
// A server whose command is in the workspace, or that configuration
// changed, is never confined: gemini-ls cannot tell what it runs.
func (s serverSpec) launchOf(cmdPath string, door *spawn.Door) launch {
	if s.confine == nil || door.InRoots(cmdPath) {
		risk := s.risk
		if risk == "" {
			risk = "any of the workspace's code: gemini-ls cannot tell what this server runs"
		}
		return launch{why: spawn.LanguageServer{Name: s.name, Risk: risk}}
	}
	l := s.confine(cmdPath, door)
	l.why.Name = s.name
	if !l.why.Confined && l.why.Risk == "" {
		l.why.Risk = s.risk
	}
	return l
}

// goplsLaunch: gopls runs the go command, whose builds run none of the
// module's code (Go's own rule: no build scripts, cgo flags checked
// against a list), and finds go on a PATH the door keeps the workspace's
// directories out of.
func goplsLaunch(string, *spawn.Door) launch {
	return launch{why: spawn.LanguageServer{Confined: true}}
}

// typescriptLaunch: typescript-language-server prefers the workspace's
// own node_modules/typescript, whose tsserver.js it runs with node. It is
// told to run the TypeScript installed beside it instead (tsserver.path,
// as VS Code runs its own unless the user picks the workspace's), which
// loads no plugin from the project (tsserver's allowLocalPluginLoads is
// off), and to fetch no typings (npm). Without a TypeScript of its own,
// outside the workspace, it would run the workspace's: not confined.
func typescriptLaunch(cmdPath string, door *spawn.Door) launch {
	init := map[string]any{"disableAutomaticTypingAcquisition": true}
	tsserver := ownTypeScript(cmdPath)
	if tsserver == "" || door.InRoots(tsserver) {
		return launch{why: spawn.LanguageServer{Risk: "the workspace's own TypeScript (node_modules/typescript) and the tsserver plugins its tsconfig.json names"}, initOptions: init}
	}
	init["tsserver"] = map[string]any{"path": tsserver}
	return launch{why: spawn.LanguageServer{Confined: true}, initOptions: init}
}

// ownTypeScript is the tsserver.js that node would load for the
// typescript-language-server at cmdPath (its links followed): the
// typescript package in the node_modules above its own, as npm installs
// the two side by side; "" when there is none.
func ownTypeScript(cmdPath string) string {
	real, err := filepath.EvalSymlinks(cmdPath)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); ; {
		if filepath.Base(dir) != "node_modules" {
			candidate := filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js")
			if fi, err := os.Stat(candidate); err == nil && fi.Mode().IsRegular() {
				return candidate
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// pyrightLaunch: pyright runs a Python interpreter to learn its search
// paths: the one python.pythonPath names, else python3 or python found on
// PATH. It is told the first of those on the PATH the door gives it,
// which holds none of the workspace's directories (an activated .venv
// puts the workspace's interpreter first on the user's); none found, it
// finds none either.
func pyrightLaunch(_ string, door *spawn.Door) launch {
	for _, name := range []string{"python3", "python"} {
		if path, err := door.LookPath(name); err == nil {
			return launch{why: spawn.LanguageServer{Confined: true}, pythonPath: path}
		}
	}
	return launch{why: spawn.LanguageServer{Confined: true}}
}
