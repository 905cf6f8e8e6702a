package tomldepth

import (
	"fmt"
	"strings"
)

// MaxDepth is the most dotted parts one key, or open brackets, a text may
// have.
const MaxDepth = 64

// Check is nil unless text nests deeper than MaxDepth; it reads text
// once.
func Check(text string) error {
	var open []byte    // the brackets open: '{' an inline table, '[' an array
	atKey := true      // at a key: a line's start, or after '{' or ',' in an inline table
	dots, line := 0, 1 // the current key's dots
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '#':
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j - 1
			} else {
				i = len(text)
			}
		case '"', '\'':
			i = stringEnd(text, i) - 1
		case '\n':
			line++
			if len(open) == 0 {
				atKey, dots = true, 0
			}
		case '.':
			if atKey {
				if dots++; dots >= MaxDepth {
					return fmt.Errorf("line %d: a key of more than %d dotted parts, which gemini-ls does not read", line, MaxDepth)
				}
			}
		case '=':
			atKey, dots = false, 0
		case '[':
			if atKey && len(open) == 0 {
				continue // a table's header, whose key's dots count
			}
			open = append(open, c)
		case '{':
			open = append(open, c)
			atKey, dots = true, 0
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case ',':
			if len(open) > 0 && open[len(open)-1] == '{' {
				atKey, dots = true, 0
			}
		}
		if len(open) > MaxDepth {
			return fmt.Errorf("line %d: more than %d arrays and inline tables one inside another, which gemini-ls does not read", line, MaxDepth)
		}
	}
	return nil
}

// stringEnd is the index after the string that starts at text[i]: basic
// ("…", with escapes) or literal ('…'), on one line or, tripled, on
// several; the end of text when it is not closed.
func stringEnd(text string, i int) int {
	q := text[i]
	if strings.HasPrefix(text[i:], strings.Repeat(string(q), 3)) {
		for j := i + 3; j < len(text); j++ {
			switch {
			case q == '"' && text[j] == '\\':
				j++
			case strings.HasPrefix(text[j:], strings.Repeat(string(q), 3)):
				return j + 3
			}
		}
		return len(text)
	}
	for j := i + 1; j < len(text); j++ {
		switch {
		case q == '"' && text[j] == '\\':
			j++
		case text[j] == q:
			return j + 1
		case text[j] == '\n':
			return j // unclosed: the line ends it
		}
	}
	return len(text)
}
