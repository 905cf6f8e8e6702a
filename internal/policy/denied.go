package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// DeniedPrograms are the programs the rules deny outright: each the
// one word of a deny rule's commandPrefix for the shell tool
// (run_shell_command(rm), or commandPrefix = "rm"), the rule applying
// in every mode to this engine's sessions, with no rule above it that
// could allow or ask about a command of that program. The sandbox
// refuses to start them (package sandbox), a second lock behind the
// judgement of the line: a spelling the judge misses still cannot run
// them. A prefix of more than one word (rm -rf) denies some uses of a
// program, not the program, and gives none. In the order of the rules,
// each once.
func (e *Engine) DeniedPrograms() []string {
	if e == nil {
		return nil
	}
	var out []string
	for i, r := range e.rules {
		program := strings.TrimSpace(r.CommandPrefix)
		switch {
		case r.Decision != Deny || !plainProgram(program) || slices.Contains(out, program):
		case !e.deniesEverywhere(r):
		case slices.ContainsFunc(e.rules[:i], func(above *Rule) bool { return e.mayDecideOtherwise(above, program) }):
		default:
			out = append(out, program)
		}
	}
	return out
}

// plainProgram says whether a command prefix is one word that names a
// program as bash would read it unquoted: no blank, quote, escape or
// expansion (a prefix the sandbox could not take for a file name).
func plainProgram(prefix string) bool {
	return prefix != "" && !strings.ContainsAny(prefix, " \t\n\r\f\v\"'\\$`*?[]{}()<>|&;~=#")
}

// deniesEverywhere says whether the deny rule r applies to the shell
// tool's every call in every mode, whatever the arguments but its
// prefix: no mode, annotation, server or subagent narrows it.
func (e *Engine) deniesEverywhere(r *Rule) bool {
	for _, m := range modes {
		if !e.applies(r, Call{Name: tools.ShellName, Mode: m}, tools.ShellName) {
			return false
		}
	}
	return r.ToolAnnotations == nil && r.Args != nil
}

// mayDecideOtherwise says whether rule, above a deny of program, could
// allow or ask about some command of it in some mode: then the program
// is not denied outright. Its modes and annotations are not read (it
// may apply), its interactivity and subagent are.
func (e *Engine) mayDecideOtherwise(rule *Rule, program string) bool {
	switch {
	case rule.Decision == Deny:
		return false
	case rule.Subagent != "" || rule.Interactive != nil && *rule.Interactive != e.interactive:
		return false // never applies here (gemini-ls runs no subagents)
	case rule.MCPName != "" || !toolNameMatches(rule.ToolName, tools.ShellName, ""):
		return false
	case rule.Args == nil || rule.CommandPrefix == "":
		return true // the whole tool, or a pattern that may match anything
	}
	// The judge reads /bin/rm as rm too.
	first, _, _ := strings.Cut(strings.TrimSpace(rule.CommandPrefix), " ")
	return path.Base(first) == path.Base(program)
}
