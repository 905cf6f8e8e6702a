package commands

import (
	"fmt"
	"strings"
)

// Triggers of the injections a command's prompt may hold.
const (
	argsPlaceholder = "{{args}}"
	shellTrigger    = "!{"
	fileTrigger     = "@{"
)

// injection is one trigger{…} in a prompt.
type injection struct {
	content    string // between the braces, trimmed
	start, end int    // byte offsets of the trigger and past the closing brace
}

// extractInjections finds each trigger{…} in prompt, counting braces so
// the content may hold balanced ones (JSON, awk), as Gemini CLI's
// injectionParser does; an unclosed one is an error naming where it
// starts. command names the command in that error ("" for none).
func extractInjections(prompt, trigger, command string) ([]injection, error) {
	var found []injection
	for i := 0; i < len(prompt); {
		at := strings.Index(prompt[i:], trigger)
		if at < 0 {
			break
		}
		start := i + at
		end, ok := closingBrace(prompt, start+len(trigger))
		if !ok {
			where := ""
			if command != "" {
				where = fmt.Sprintf(" in command '%s'", command)
			}
			return nil, fmt.Errorf("invalid syntax%s: unclosed injection starting at index %d ('%s'); ensure braces are balanced: paths or commands with unbalanced braces are not supported directly", where, start, trigger)
		}
		found = append(found, injection{content: strings.TrimSpace(prompt[start+len(trigger) : end]), start: start, end: end + 1})
		i = end + 1
	}
	return found, nil
}

// closingBrace is the index of the brace that closes the one opened just
// before from.
func closingBrace(s string, from int) (int, bool) {
	depth := 1
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}
