package gitconfig

import (
	"strconv"
	"strings"
)

// Entry is one variable of a git configuration file: section and
// name lowered, as git compares them, subsection as written.
type Entry struct {
	Section, Subsection, Name, Value string
}

// IsInclude says e names a file git includes: include.path, or
// includeIf.<condition>.path, whatever the condition.
func (e Entry) IsInclude() bool {
	return e.Name == "path" && (e.Section == "include" || e.Section == "includeif")
}

// Key is e as git names it: section[.subsection].name.
func (e Entry) Key() string {
	if e.Subsection != "" {
		return e.Section + "." + e.Subsection + "." + e.Name
	}
	return e.Section + "." + e.Name
}

// Parse reads src as git reads a configuration file (config.c), in order:
// [section], [section "subsection"] and the older [section.subsection],
// name = value or a bare name, values with quotes, escapes, line
// continuations and # or ; comments. It is linear in src; where git would
// stop at an error it stops, with the entries read so far (git refuses
// such a file, so runs nothing it names and answers nothing).
func Parse(src []byte) []Entry {
	p := parser{src: string(src)}
	return p.parse()
}

type parser struct {
	src string
	i   int
}

func (p *parser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *parser) skipLine() {
	if j := strings.IndexByte(p.src[p.i:], '\n'); j >= 0 {
		p.i += j + 1
	} else {
		p.i = len(p.src)
	}
}

func (p *parser) parse() []Entry {
	var out []Entry
	var section, subsection string
	for p.i < len(p.src) {
		c := p.peek()
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			var ok bool
			if section, subsection, ok = p.header(); !ok {
				return out
			}
		case isAlpha(c):
			if section == "" {
				return out
			}
			name, value, ok := p.variable()
			if !ok {
				return out
			}
			out = append(out, Entry{section, subsection, name, value})
		default:
			return out
		}
	}
	return out
}

// header reads [section] or [section "subsection"] or [section.sub].
func (p *parser) header() (section, subsection string, ok bool) {
	p.i++ // [
	start := p.i
	for p.i < len(p.src) && (isAlnum(p.src[p.i]) || p.src[p.i] == '-' || p.src[p.i] == '.') {
		p.i++
	}
	section = strings.ToLower(p.src[start:p.i])
	if section == "" {
		return "", "", false
	}
	switch p.peek() {
	case ']':
		p.i++
		if dot := strings.IndexByte(section, '.'); dot >= 0 {
			// The older [section.subsection]: lowered whole.
			return section[:dot], section[dot+1:], true
		}
		return section, "", true
	case ' ', '\t':
		for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
			p.i++
		}
		if p.peek() != '"' {
			return "", "", false
		}
		p.i++
		var sub strings.Builder
		for {
			if p.i >= len(p.src) || p.src[p.i] == '\n' {
				return "", "", false
			}
			c := p.src[p.i]
			p.i++
			if c == '"' {
				break
			}
			if c == '\\' && p.i < len(p.src) && p.src[p.i] != '\n' {
				c = p.src[p.i]
				p.i++
			}
			sub.WriteByte(c)
		}
		if p.peek() != ']' {
			return "", "", false
		}
		p.i++
		return section, sub.String(), true
	}
	return "", "", false
}

// variable reads name [= value] to the end of its (continued) line.
func (p *parser) variable() (name, value string, ok bool) {
	start := p.i
	for p.i < len(p.src) && (isAlnum(p.src[p.i]) || p.src[p.i] == '-') {
		p.i++
	}
	name = strings.ToLower(p.src[start:p.i])
	for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
		p.i++
	}
	switch p.peek() {
	case '=':
		p.i++
		value, ok = p.value()
		return name, value, ok
	case '\n', '\r', '#', ';', 0:
		p.skipLine()
		return name, "true", true
	}
	return "", "", false
}

// value reads a value: quotes, escapes, continuations; comments and the
// trailing blanks outside quotes dropped, inner blanks kept.
func (p *parser) value() (string, bool) {
	var b []byte
	quoted := false
	spaces := 0
	for p.i < len(p.src) {
		c := p.src[p.i]
		p.i++
		switch {
		case c == '\n':
			if quoted {
				return "", false
			}
			return string(b), true
		case !quoted && (c == ';' || c == '#'):
			p.skipLine()
			return string(b), true
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if len(b) > 0 {
				spaces++
			}
			continue
		}
		for ; spaces > 0; spaces-- {
			b = append(b, ' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			if p.i >= len(p.src) {
				return "", false
			}
			e := p.src[p.i]
			p.i++
			switch e {
			case '\n':
				// a continued line
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			case 'b':
				b = append(b, '\b')
			case '\\', '"':
				b = append(b, e)
			default:
				return "", false
			}
		default:
			b = append(b, c)
		}
	}
	if quoted {
		return "", false
	}
	return string(b), true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// Bool is value read as git reads a boolean (config.c's
// git_parse_maybe_bool): true, yes, on, false, no, off and the empty
// value in any case, or an integer as C's strtoimax reads one in base 0
// with an optional k, m or g after it, true unless 0. A bare name (Parse
// gives "true") is true. ok is false for anything else, which git
// refuses.
func Bool(value string) (b, ok bool) {
	switch strings.ToLower(value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	digits := strings.TrimRight(value, "kKmMgG")
	unsigned := strings.ToLower(strings.TrimLeft(digits, "+-"))
	if len(value)-len(digits) > 1 || strings.Contains(digits, "_") || strings.HasPrefix(unsigned, "0o") || strings.HasPrefix(unsigned, "0b") {
		return false, false // strconv reads 1_000, 0o17 and 0b1; C does not
	}
	n, err := strconv.ParseInt(digits, 0, 64)
	return n != 0, err == nil
}
