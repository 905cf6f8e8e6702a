package gitignore

import "strings"

// Pattern is one rule of an ignore file, read as git's dir.c reads it.
type Pattern struct {
	// text is the glob: no leading '!', no trailing '/', and for a
	// pattern holding a '/' no leading '/' (the pattern is anchored to
	// base either way).
	text string
	// base is the directory of the ignore file, relative to the root it
	// was read from: "" or slash-separated and ending in '/'.
	base string
	// literal is how long text's start without glob characters is.
	literal  int
	negative bool // '!': it re-includes
	dirOnly  bool // a trailing '/': it matches directories only
	// anyDepth: text holds no '/', so it matches a file's name in
	// base's directory or any below.
	anyDepth bool
	// endsWith: text is '*' then a literal, matched as a suffix.
	endsWith bool
	fold     bool // ASCII letters match without case (core.ignorecase)
}

const bom = "\ufeff"

// Parse reads an ignore file's rules. base is its directory relative to
// the root whose paths Ignored is given: "" for the root, else
// slash-separated, with or without a trailing '/'. fold matches ASCII
// letters without case, as git does under core.ignorecase.
//
// As git: a UTF-8 byte order mark is skipped; lines end at '\n', a '\r'
// before it dropped; a line that is empty or starts with '#' is a
// comment; a line ends at a NUL byte; trailing spaces are dropped unless
// escaped with '\'; '\#' and '\!' start a pattern with a literal '#' or
// '!' (the glob reads the escape).
func Parse(data []byte, base string, fold bool) []Pattern {
	if base != "" && !strings.HasSuffix(base, "/") {
		base += "/"
	}
	text := strings.TrimPrefix(string(data), bom)
	var patterns []Pattern
	// Split, not a bufio.Scanner: its 64 KB line limit once ended the
	// rules at a long line (a long comment), dropping the rest unseen.
	for raw := range strings.SplitSeq(text, "\n") {
		if raw == "" || raw[0] == '#' {
			continue
		}
		raw = strings.TrimSuffix(raw, "\r")
		if nul := strings.IndexByte(raw, 0); nul >= 0 {
			raw = raw[:nul]
		}
		if p, ok := parsePattern(trimTrailingSpaces(raw), base, fold); ok {
			patterns = append(patterns, p)
		}
	}
	return patterns
}

// trimTrailingSpaces drops the spaces ending s, but an escaped one and
// those before it; a '\' ending s keeps every space.
func trimTrailingSpaces(s string) string {
	spaces := -1 // where the trailing spaces start
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if spaces < 0 {
				spaces = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			spaces = -1
		default:
			spaces = -1
		}
	}
	if spaces >= 0 {
		return s[:spaces]
	}
	return s
}

// parsePattern reads one rule; false for one that can match nothing
// (empty once its '!' and trailing '/' are gone).
func parsePattern(s, base string, fold bool) (Pattern, bool) {
	p := Pattern{base: base, fold: fold}
	if strings.HasPrefix(s, "!") {
		p.negative = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	if s == "" {
		return p, false
	}
	p.anyDepth = strings.IndexByte(s, '/') < 0
	p.literal = literalPrefix(s)
	p.endsWith = p.anyDepth && s[0] == '*' && literalPrefix(s[1:]) == len(s)-1
	if !p.anyDepth && s[0] == '/' {
		s = s[1:]
		p.literal--
	}
	p.text = s
	return p, true
}

// literalPrefix is how long s's start without glob characters is.
func literalPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}
