package skills

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// parseFrontMatter reads name and description from front matter as Gemini
// CLI's parseFrontmatter does: as YAML, where both must be strings; else
// line by line (parseSimpleFrontmatter), which takes a description with
// a colon in it that YAML refuses.
func parseFrontMatter(text string) (name, description string, ok bool) {
	if fields, err := parseYAMLMapping(text); err == nil {
		n, nameOK := fields["name"]
		d, descOK := fields["description"]
		if nameOK && descOK && n.isString && d.isString {
			return n.text, d.text, true
		}
	}
	return parseSimpleFrontMatter(text)
}

var (
	simpleName        = regexp.MustCompile(`^\s*name:\s*(.*)$`)
	simpleDescription = regexp.MustCompile(`^\s*description:\s*(.*)$`)
	continuation      = regexp.MustCompile(`^[ \t]+\S`)
)

// parseSimpleFrontMatter is Gemini CLI's parseSimpleFrontmatter: the last
// name: and description: lines, a description continued by indented
// lines.
func parseSimpleFrontMatter(text string) (name, description string, ok bool) {
	lines := splitLines(text)
	var haveName, haveDescription bool
	for i := 0; i < len(lines); i++ {
		if m := simpleName.FindStringSubmatch(lines[i]); m != nil {
			name, haveName = strings.TrimSpace(m[1]), true
			continue
		}
		m := simpleDescription.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		parts := []string{strings.TrimSpace(m[1])}
		for i+1 < len(lines) && continuation.MatchString(lines[i+1]) {
			parts = append(parts, strings.TrimSpace(lines[i+1]))
			i++
		}
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		description, haveDescription = strings.Join(kept, " "), true
	}
	return name, description, haveName && haveDescription
}

func splitLines(text string) []string {
	return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
}

// scalar is one value of the front matter's mapping; isString is false
// for what YAML reads as another type (a number, a list, a mapping).
type scalar struct {
	text     string
	isString bool
}

var errNotFlatYAML = errors.New("not a flat YAML mapping")

// topLevelKey is a key starting a line of the mapping, and its value.
var topLevelKey = regexp.MustCompile(`^([^\s#:'"][^:]*?):(?:[ \t]+(.*))?$`)

// parseYAMLMapping reads the subset of YAML front matter holds: a mapping
// of keys to scalars (plain, quoted, or | and > blocks). What YAML would
// refuse, and what it is beyond that subset, is an error, which falls back
// to the simple parser as a js-yaml error does in Gemini CLI.
func parseYAMLMapping(text string) (map[string]scalar, error) {
	lines := splitLines(text)
	out := map[string]scalar{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") && !startsIndented(line) {
			continue
		}
		m := topLevelKey.FindStringSubmatch(line)
		if m == nil {
			return nil, errNotFlatYAML
		}
		key := strings.TrimSpace(m[1])
		if _, dup := out[key]; dup {
			return nil, errNotFlatYAML
		}
		// The value's further lines are the indented (or blank) ones after.
		end := i + 1
		for end < len(lines) && (startsIndented(lines[end]) || strings.TrimSpace(lines[end]) == "") {
			end++
		}
		value, err := parseValue(m[2], lines[i+1:end])
		if err != nil {
			return nil, err
		}
		out[key] = value
		i = end - 1
	}
	return out, nil
}

func startsIndented(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
}

// blockHeader is a | or > block scalar's header, with its chomping.
var blockHeader = regexp.MustCompile(`^([|>])([+-]?)\s*(?:#.*)?$`)

// nonString are plain scalars YAML's core schema reads as another type.
var nonString = regexp.MustCompile(`^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)

// parseValue reads a key's value: first, the rest of its line; more, the
// lines after it that belong to it.
func parseValue(first string, more []string) (scalar, error) {
	first = strings.TrimSpace(first)
	switch {
	case blockHeader.MatchString(first):
		h := blockHeader.FindStringSubmatch(first)
		return scalar{text: blockScalar(h[1] == "|", h[2], more), isString: true}, nil
	case strings.HasPrefix(first, `"`):
		return quoted(first, more, `"`)
	case strings.HasPrefix(first, "'"):
		return quoted(first, more, "'")
	case first == "" && len(nonBlank(more)) > 0:
		// A nested mapping or list: not a string.
		return scalar{}, nil
	case first != "" && strings.ContainsAny(first[:1], "[{&*!%@`,"):
		return scalar{}, nil
	}
	return plainScalar(first, more)
}

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
func plainScalar(first string, more []string) (scalar, error) {
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
			return scalar{}, errNotFlatYAML // YAML refuses a second mapping value
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
	text := b.String()
	return scalar{text: text, isString: text != "" && !nonString.MatchString(text)}, nil
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
func quoted(first string, more []string, quote string) (scalar, error) {
	parts := []string{first}
	for _, l := range more {
		parts = append(parts, strings.TrimSpace(l))
	}
	joined := strings.TrimSpace(strings.Join(nonEmpty(parts), " "))
	body, ok := closingQuote(joined, quote)
	if !ok {
		return scalar{}, errNotFlatYAML
	}
	if quote == "'" {
		return scalar{text: strings.ReplaceAll(body, "''", "'"), isString: true}, nil
	}
	text, err := strconv.Unquote(`"` + body + `"`)
	if err != nil {
		return scalar{}, errNotFlatYAML
	}
	return scalar{text: text, isString: true}, nil
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
