package frontmatter

import (
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

func startsIndented(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
}

// blockHeader is a | or > block scalar's header, with its chomping.
var blockHeader = lazyregexp.New(`^([|>])([+-]?)\s*(?:#.*)?$`)

// nonString are plain scalars YAML's core schema reads as another type.
var nonString = lazyregexp.New(`^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)

func nonBlank(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// plainScalar is an unquoted value, its lines folded into one.
func plainScalar(first string, more []string) (Value, error) {
	parts := []string{stripComment(first)}
	for _, l := range more {
		parts = append(parts, stripComment(strings.TrimSpace(l)))
	}
	var b strings.Builder
	pendingBreaks := 0
	for i, p := range parts {
		if p == "" {
			if i > 0 {
				pendingBreaks++
			}
			continue
		}
		if strings.Contains(p, ": ") || strings.HasSuffix(p, ":") {
			return Value{}, errNotYAML // YAML refuses a second mapping value
		}
		switch {
		case b.Len() == 0:
		case pendingBreaks > 0:
			b.WriteString(strings.Repeat("\n", pendingBreaks))
		default:
			b.WriteByte(' ')
		}
		pendingBreaks = 0
		b.WriteString(p)
	}
	return typed(b.String()), nil
}

// stripComment drops a plain scalar's " #" comment.
func stripComment(s string) string {
	if strings.HasPrefix(s, "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// quoted is a quoted value, possibly over several lines, their breaks
// folded into spaces.
func quoted(first string, more []string, quote string) (Value, error) {
	parts := []string{first}
	for _, l := range more {
		parts = append(parts, strings.TrimSpace(l))
	}
	joined := strings.TrimSpace(strings.Join(nonEmpty(parts), " "))
	body, ok := closingQuote(joined, quote)
	if !ok {
		return Value{}, errNotYAML
	}
	if quote == "'" {
		return str(strings.ReplaceAll(body, "''", "'")), nil
	}
	text, err := strconv.Unquote(`"` + body + `"`)
	if err != nil {
		return Value{}, errNotYAML
	}
	return str(text), nil
}

func nonEmpty(parts []string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// closingQuote is what lies between s's opening quote and its closing
// one, which only a comment may follow.
func closingQuote(s, quote string) (string, bool) {
	for i := 1; i < len(s); i++ {
		switch {
		case quote == `"` && s[i] == '\\':
			i++
		case quote == "'" && s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i:i+1] == quote:
			rest := strings.TrimSpace(s[i+1:])
			return s[1:i], rest == "" || strings.HasPrefix(rest, "#")
		}
	}
	return "", false
}

// blockScalar is a | (literal) or > (folded) block's text, chomped as
// its header says: clip (one final line break), - (none) or + (all).
func blockScalar(literal bool, chomp string, lines []string) string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			indent = len(l) - len(strings.TrimLeft(l, " \t"))
			break
		}
	}
	var kept []string
	for _, l := range lines {
		if len(l) >= indent && indent >= 0 {
			kept = append(kept, l[indent:])
		} else {
			kept = append(kept, strings.TrimSpace(l))
		}
	}
	// Trailing blank lines are chomping's.
	trailing := 0
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
		trailing++
	}
	if len(kept) == 0 {
		return ""
	}
	var text string
	if literal {
		text = strings.Join(kept, "\n")
	} else {
		text = fold(kept)
	}
	switch chomp {
	case "-":
		return text
	case "+":
		return text + strings.Repeat("\n", trailing+1)
	}
	return text + "\n"
}

// fold joins a > block's lines: a single break becomes a space, each
// blank line a break, and more-indented lines keep theirs.
func fold(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			switch {
			case l == "" || startsIndented(l) || startsIndented(prev):
				b.WriteByte('\n')
			case prev == "": // the blank line's break stands for this one
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
