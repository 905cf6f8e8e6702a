package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parseBash parses command as bash, or reports false.
func parseBash(command string) (*syntax.File, bool) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	return file, err == nil
}

// maxWrapperDepth bounds how deep shellCommands looks into bash -c
// scripts within bash -c scripts.
const maxWrapperDepth = 4

// shellCommands are the simple commands command runs, however nested
// (lists, pipelines, subshells, command and process substitutions), each
// as its text in command, in order, as Gemini CLI's parseCommandDetails
// lists them; and, after a shell wrapper (sh, bash or zsh -c 'script'),
// the commands of its script, as Gemini CLI's stripShellWrapper finds
// them. false when command is not bash.
func shellCommands(command string) ([]string, bool) {
	return commandsOf(command, maxWrapperDepth)
}

func commandsOf(command string, depth int) ([]string, bool) {
	file, ok := parseBash(command)
	if !ok {
		return nil, false
	}
	var parts []string
	syntax.Walk(file, func(n syntax.Node) bool {
		call, isCall := n.(*syntax.CallExpr)
		if !isCall || len(call.Args) == 0 {
			return true
		}
		if text, ok := source(command, call); ok {
			parts = append(parts, text)
		}
		if script, ok := wrappedScript(command, call); ok && depth > 0 {
			inner, _ := commandsOf(script, depth-1)
			parts = append(parts, inner...)
		}
		return true
	})
	return parts, len(parts) > 0
}

// source is n's text in command.
func source(command string, n syntax.Node) (string, bool) {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || start >= end || end > len(command) {
		return "", false
	}
	return strings.TrimSpace(command[start:end]), true
}

// wrappedScript is the script of a call of a shell with -c: the third
// word's text, without the quotes around it.
func wrappedScript(command string, call *syntax.CallExpr) (string, bool) {
	if len(call.Args) < 3 || call.Args[1].Lit() != "-c" {
		return "", false
	}
	switch path.Base(call.Args[0].Lit()) {
	case "sh", "bash", "zsh":
	default:
		return "", false
	}
	script, ok := source(command, call.Args[2])
	if len(script) >= 2 && (script[0] == '\'' || script[0] == '"') && script[len(script)-1] == script[0] {
		script = script[1 : len(script)-1]
	}
	return script, ok
}

// redirects reports whether command redirects input or output anywhere
// (>, >>, <, <<, <<<, &> ...), as Gemini CLI's hasRedirection does.
func redirects(command string) bool {
	if !strings.ContainsAny(command, "<>") {
		return false
	}
	file, ok := parseBash(command)
	if !ok {
		return true
	}
	found := false
	syntax.Walk(file, func(n syntax.Node) bool {
		if stmt, ok := n.(*syntax.Stmt); ok && len(stmt.Redirs) > 0 {
			found = true
		}
		return !found
	})
	return found
}
