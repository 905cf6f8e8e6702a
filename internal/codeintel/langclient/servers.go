package langclient

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// ServerConfig is one language server, as the settings key
// codeIntelligence.servers holds it by name, in the shape of Neovim's
// vim.lsp.config: an entry named as a built-in server overrides the fields
// it gives and keeps the others; a new name adds a server.
type ServerConfig struct {
	// Cmd is the command and its arguments, the command found on PATH.
	Cmd []string `json:"cmd,omitempty"`
	// Filetypes are the LSP language ids it serves (go, python).
	Filetypes []string `json:"filetypes,omitempty"`
	// RootMarkers are the files or directories that mark a project's
	// root, the nearest above a file winning.
	RootMarkers []string `json:"root_markers,omitempty"`
	// Enabled false turns the server off; unset or true leaves it on.
	Enabled *bool `json:"enabled,omitempty"`
}

// serverSpec is a server of the table: a built-in, a ServerConfig
// overlaid on one, or a ServerConfig of its own.
type serverSpec struct {
	name        string
	cmd         []string
	filetypes   []string
	rootMarkers []string
	// install says how to get the server, for a NoServerError.
	install string
	// confine says how a built-in keeps the server from running the
	// workspace's code; nil: it cannot be kept from it (confine.go).
	confine confinement
	// risk says what of the workspace the server may run, for the user's
	// question where it is not confined.
	risk string
}

// builtinServers are the servers known without configuration, in the
// order a filetype's servers are tried.
func builtinServers() []serverSpec {
	return []serverSpec{
		{name: "gopls", cmd: []string{"gopls"}, filetypes: []string{"go", "gomod", "gowork"},
			rootMarkers: []string{"go.work", "go.mod", ".git"},
			install:     "gopls (go install golang.org/x/tools/gopls@latest)",
			confine:     goplsLaunch},
		{name: "rust-analyzer", cmd: []string{"rust-analyzer"}, filetypes: []string{"rust"},
			rootMarkers: []string{"Cargo.toml", ".git"},
			install:     "rust-analyzer (rustup component add rust-analyzer)",
			risk:        "the workspace's build scripts and procedural macros, and the programs its .cargo/config.toml and rust-toolchain.toml name (cargo runs them to load the project)"},
		{name: "pyright", cmd: []string{"pyright-langserver", "--stdio"}, filetypes: []string{"python"},
			rootMarkers: pythonMarkers,
			install:     "pyright (npm install -g pyright)",
			confine:     pyrightLaunch},
		{name: "basedpyright", cmd: []string{"basedpyright-langserver", "--stdio"}, filetypes: []string{"python"},
			rootMarkers: pythonMarkers,
			install:     "basedpyright (pip install basedpyright)",
			risk:        "the workspace's own Python interpreter (it looks for a .venv in the project)"},
		{name: "typescript-language-server", cmd: []string{"typescript-language-server", "--stdio"},
			filetypes:   []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
			rootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json", ".git"},
			install:     "typescript-language-server (npm install -g typescript-language-server typescript)",
			confine:     typescriptLaunch},
		{name: "clangd", cmd: []string{"clangd"}, filetypes: []string{"c", "cpp"},
			rootMarkers: []string{"compile_commands.json", ".clangd", ".git"},
			install:     "clangd (your system's clangd package)",
			risk:        "the compilers and flags the workspace's compile_commands.json and .clangd name"},
		{name: "jdtls", cmd: []string{"jdtls"}, filetypes: []string{"java"},
			rootMarkers: []string{"pom.xml", "build.gradle", ".git"},
			install:     "jdtls (Eclipse JDT Language Server)",
			risk:        "the workspace's Gradle or Maven build (its build scripts, plugins and wrapper)"},
	}
}

var pythonMarkers = []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json", ".git"}

// mergeServers is the built-ins with configured overlaid: servers added
// by configuration first (by name), so that one serving a filetype a
// built-in also serves is preferred, then the built-ins in their order.
// Disabled servers and added ones without a command are left out.
func mergeServers(configured map[string]ServerConfig) []serverSpec {
	var added, merged []serverSpec
	builtins := builtinServers()
	for _, b := range builtins {
		if c, ok := configured[b.name]; ok {
			if c.Enabled != nil && !*c.Enabled {
				continue
			}
			b = overlay(b, c)
			if len(b.cmd) == 0 {
				continue
			}
		}
		merged = append(merged, b)
	}
	names := make([]string, 0, len(configured))
	for name := range configured {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c := configured[name]
		isBuiltin := slices.ContainsFunc(builtins, func(b serverSpec) bool { return b.name == name })
		if isBuiltin || (c.Enabled != nil && !*c.Enabled) || len(c.Cmd) == 0 || c.Cmd[0] == "" {
			continue
		}
		added = append(added, overlay(serverSpec{name: name}, c))
	}
	return append(added, merged...)
}

func overlay(s serverSpec, c ServerConfig) serverSpec {
	if len(c.Cmd) > 0 && c.Cmd[0] != "" {
		s.cmd = c.Cmd
		s.install = "" // the built-in's advice is not for this command
		// Nor its confinement: what this command runs is unknown.
		s.confine, s.risk = nil, ""
	}
	if c.Filetypes != nil {
		s.filetypes = c.Filetypes
	}
	if c.RootMarkers != nil {
		s.rootMarkers = c.RootMarkers
	}
	return s
}

// installHint says what to install for s: its built-in advice, or the
// configured command that is missing.
func (s serverSpec) installHint() string {
	if s.install != "" {
		return s.install
	}
	return s.cmd[0] + ` (the command codeIntelligence.servers gives "` + s.name + `"; it is not on PATH)`
}

// filetypeOfExt is the LSP language id of a file by its extension.
func filetypeOfExt(ext string) (string, bool) {
	switch ext {
	case ".go":
		return "go", true
	case ".rs":
		return "rust", true
	case ".py", ".pyi":
		return "python", true
	case ".ts", ".mts", ".cts":
		return "typescript", true
	case ".tsx":
		return "typescriptreact", true
	case ".js", ".mjs", ".cjs":
		return "javascript", true
	case ".jsx":
		return "javascriptreact", true
	case ".c", ".h":
		return "c", true
	case ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++":
		return "cpp", true
	case ".java":
		return "java", true
	}
	return "", false
}

// filetypeOfName is the language id of files known by their whole name.
func filetypeOfName(base string) (string, bool) {
	switch base {
	case "go.mod":
		return "gomod", true
	case "go.work":
		return "gowork", true
	}
	return "", false
}

// nameOfFiletype is filetype ft's name for people.
func nameOfFiletype(ft string) (string, bool) {
	switch ft {
	case "go":
		return "Go", true
	case "gomod":
		return "go.mod", true
	case "gowork":
		return "go.work", true
	case "rust":
		return "Rust", true
	case "python":
		return "Python", true
	case "typescript":
		return "TypeScript", true
	case "typescriptreact":
		return "TypeScript (TSX)", true
	case "javascript":
		return "JavaScript", true
	case "javascriptreact":
		return "JavaScript (JSX)", true
	case "c":
		return "C", true
	case "cpp":
		return "C++", true
	case "java":
		return "Java", true
	}
	return "", false
}

// filetypes are the language ids path may have, the likeliest first: by
// its name or extension, then the editor's hint, then the bare extension
// (a configured server's filetype may be one, as "zig").
func filetypes(path, hint string) []string {
	var fts []string
	base := filepath.Base(path)
	if ft, ok := filetypeOfName(base); ok {
		fts = append(fts, ft)
	}
	ext := strings.ToLower(filepath.Ext(base))
	if ft, ok := filetypeOfExt(ext); ok {
		fts = append(fts, ft)
	}
	if hint != "" {
		fts = append(fts, hint)
	}
	if ext != "" {
		fts = append(fts, ext[1:])
	}
	return slices.Compact(fts)
}

// languageName is the file's language for people, or its name when none
// is known.
func languageName(path string, fts []string) string {
	for _, ft := range fts {
		if name, ok := nameOfFiletype(ft); ok {
			return name
		}
	}
	return filepath.Base(path)
}

// findRoot is the nearest directory above path holding one of markers,
// never above limit (the workspace root holding path); else limit.
func findRoot(path, limit string, markers []string) string {
	dir := filepath.Dir(path)
	if limit == "" {
		limit = dir
	}
	for {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir || !workspace.Within(limit, parent) {
			return limit
		}
		dir = parent
	}
}

// hasOwnMarker reports whether dir holds one of s's markers other than
// .git, which marks every project and so no server's in particular.
func (s serverSpec) hasOwnMarker(dir string) bool {
	for _, m := range s.rootMarkers {
		if m == ".git" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}
