package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parseBash parses command as bash, or reports false.
func parseBash(command string) (*syntax.File, bool) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	return file, err == nil
}

// shellCommands are the simple commands command runs, however nested
// (lists, pipelines, subshells, command and process substitutions), each
// as its text in command, in order, as Gemini CLI's parseCommandDetails
// lists them; false when command is not bash.
func shellCommands(command string) ([]string, bool) {
	file, ok := parseBash(command)
	if !ok {
		return nil, false
	}
	var parts []string
	syntax.Walk(file, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			start, end := int(call.Pos().Offset()), int(call.End().Offset())
			if 0 <= start && start < end && end <= len(command) {
				parts = append(parts, strings.TrimSpace(command[start:end]))
			}
		}
		return true
	})
	return parts, len(parts) > 0
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
