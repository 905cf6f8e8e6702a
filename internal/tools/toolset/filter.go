package toolset

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/shellparse"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/discovered"
)

// builtinNames is every name a built-in tool answers to in settings: its
// own, and those it says settings may give it (tools.Spec.Aliases:
// Gemini CLI's class names, its legacy names).
func builtinNames(t tools.Tool) []string {
	return append([]string{t.Name()}, tools.AliasesOf(t)...)
}

// MCPTool is what an MCP server's tool tells about itself, so settings can
// name it as Gemini CLI does.
type MCPTool interface {
	// MCPOrigin is the server's alias and the tool's name on the server.
	MCPOrigin() (server, tool string)
}

// names is every name settings may give t by: its own, and for an MCP tool
// the server's name for it, SERVER__TOOL (older Gemini CLI) and
// mcp_SERVER_TOOL (Gemini CLI now); for a discovered tool, which is called
// discovered_tool_NAME as in Gemini CLI, also the NAME the project declared.
func names(t tools.Tool, isDiscovered bool) []string {
	all := []string{t.Name()}
	if m, ok := t.(MCPTool); ok {
		server, tool := m.MCPOrigin()
		all = append(all, tool, server+"__"+tool, "mcp_"+server+"_"+tool)
	}
	if isDiscovered {
		all = append(all, strings.TrimPrefix(t.Name(), discovered.NamePrefix))
	}
	return all
}

// filter is what tools.core and tools.exclude leave of the tools.
type filter struct {
	core    []string // nil: every built-in tool
	exclude map[string]bool
	shell   osshell.Kind // the language of the shell tool's command lines
}

func newFilter(t settings.Tools, shell osshell.Kind) filter {
	f := filter{core: t.Core, exclude: map[string]bool{}, shell: shell}
	for _, name := range t.Exclude {
		f.exclude[name] = true
	}
	return f
}

func (f filter) excluded(all []string) bool {
	return slices.ContainsFunc(all, func(n string) bool { return f.exclude[n] })
}

// builtin is the built-in tools tools.core keeps (as Gemini CLI matches
// it: a name, a class name, or either followed by "(…)") and tools.exclude
// does not remove. A tool that runs commands (Annotations: the shell)
// that core restricts to some commands refuses the others.
func (f filter) builtin(all []tools.Tool) []tools.Tool {
	var kept []tools.Tool
	for _, t := range all {
		names := builtinNames(t)
		if f.excluded(names) {
			continue
		}
		if f.core == nil {
			kept = append(kept, t)
			continue
		}
		var prefixes []string
		listed, unrestricted := false, false
		for _, entry := range f.core {
			for _, n := range names {
				switch {
				case entry == n:
					listed, unrestricted = true, true
				case strings.HasPrefix(entry, n+"(") && strings.HasSuffix(entry, ")"):
					listed = true
					prefixes = append(prefixes, strings.TrimSpace(entry[len(n)+1:len(entry)-1]))
				}
			}
		}
		switch {
		case !listed:
		case tools.AnnotationsOf(t).RunsCommands && !unrestricted:
			kept = append(kept, &restrictedShell{Tool: t, prefixes: prefixes, shell: f.shell})
		default:
			kept = append(kept, t) // run_tool(args) means the tool, for others
		}
	}
	return kept
}

// filteredSource is a Source without the tools tools.exclude removes.
type filteredSource struct {
	tools.Source
	filter     filter
	discovered bool // the source's tools are discovered ones
}

func (s filteredSource) Tools() []tools.Tool {
	all := s.Source.Tools()
	kept := all[:0:0]
	for _, t := range all {
		if !s.filter.excluded(names(t, s.discovered)) {
			kept = append(kept, t)
		}
	}
	return kept
}

// restrictedShell is run_shell_command when tools.core lists it only as
// run_shell_command(PREFIX): a command line runs only when every command
// in it starts with one of the prefixes, word by word, as in Gemini CLI.
type restrictedShell struct {
	tools.Tool
	prefixes []string
	shell    osshell.Kind // the language the tool's command lines are in
}

// NormalizeArgs is the shell's: hooks and policy rules see its calls'
// arguments as Gemini CLI 0.61 names them.
func (r *restrictedShell) NormalizeArgs(raw map[string]any) (map[string]any, error) {
	return tools.NormalizeArgs(r.Tool, raw)
}

// Annotations are the shell's: it still runs commands.
func (r *restrictedShell) Annotations() tools.Annotations { return tools.AnnotationsOf(r.Tool) }

func (r *restrictedShell) Build(args map[string]any) (tools.Call, error) {
	call, err := r.Tool.Build(args)
	if err != nil {
		return nil, err
	}
	command, _ := args["command"].(string)
	if why := r.refuse(command, call); why != "" {
		return nil, fmt.Errorf("Command %q is not allowed: %s. The settings (tools.core) allow run_shell_command only for commands starting with: %s",
			command, why, strings.Join(r.prefixes, ", "))
	}
	return call, nil
}

// refuse says why command may not run, or "" when it may. What the
// confirmation cannot name (a substitution, eval, a redirection into a
// file…) is refused, since it could run anything.
func (r *restrictedShell) refuse(command string, call tools.Call) string {
	if c := call.Confirmation(); c == nil || len(c.AllowKeys) == 0 {
		return "it does more than run named commands"
	}
	if r.shell != osshell.Bash {
		return r.refuseWindows(command)
	}
	file, err := shellparse.Parse(command)
	if err != nil {
		return "it cannot be parsed"
	}
	why := ""
	syntax.Walk(file, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			// An assignment, bare or before a command, changes what a
			// later or the same command does (PATH, GIT_CONFIG_*,
			// LD_PRELOAD): the line is no longer the commands named.
			if len(n.Assigns) > 0 {
				why = "it assigns variables"
				return false
			}
			words, ok := staticWords(n.Args)
			if !ok {
				why = "a command's words are not plain text"
			} else if !slices.ContainsFunc(r.prefixes, func(p string) bool { return hasWordPrefix(words, strings.Fields(p)) }) {
				why = fmt.Sprintf("%q is not one of them", strings.Join(words, " "))
			}
		case *syntax.DeclClause, *syntax.FuncDecl, *syntax.LetClause, *syntax.ArithmCmd, *syntax.CoprocClause:
			why = "it declares, defines or evaluates something"
		}
		return true
	})
	return why
}

// refuseWindows is refuse of a PowerShell or cmd.exe line, which bash's
// grammar would misread ("git" log is a string, not a command, to
// PowerShell). The confirmation has refused whatever SplitWindows cannot
// vouch for (substitutions, variables, writes, commands that run code);
// each command's words are compared as typed, so a quoted or escaped one
// matches no prefix.
func (r *restrictedShell) refuseWindows(command string) string {
	for _, c := range shellparse.SplitWindows(r.shell, command).Commands {
		words := make([]string, len(c.Words))
		for i, w := range c.Words {
			words[i] = command[w.Start:w.End]
		}
		if !slices.ContainsFunc(r.prefixes, func(p string) bool { return hasWordPrefix(words, strings.Fields(p)) }) {
			return fmt.Sprintf("%q is not one of them", strings.Join(words, " "))
		}
	}
	return ""
}

// staticWords is words as bash passes them, when each is plain text.
func staticWords(words []*syntax.Word) ([]string, bool) {
	out := make([]string, 0, len(words))
	for _, w := range words {
		text, ok := shellparse.StaticText(w)
		if !ok {
			return nil, false
		}
		out = append(out, text)
	}
	return out, true
}

func hasWordPrefix(words, prefix []string) bool {
	return len(prefix) > 0 && len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix)
}
