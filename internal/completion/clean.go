package completion

import (
	"strings"
)

// maxLines bounds a suggestion made at the end of a line.
const maxLines = 16

// clean turns the model's raw answer into what is inserted at w's cursor,
// "" for nothing:
//   - a Markdown fence around it, and an echo of the cursor marker, off;
//   - the cursor's line as far as the cursor, when the answer repeats it,
//     off;
//   - mid-line, its first line only;
//   - no closing bracket that nothing before it opened, on its line or in
//     the answer;
//   - what it shares with the text after the cursor (the end of the
//     answer that is the start of the suffix) off;
//   - nothing when all it does is repeat what follows the cursor.
func clean(raw string, w window) string {
	s := strings.ReplaceAll(raw, "\r\n", "\n")
	s = unfence(s)
	s = strings.ReplaceAll(s, cursorMarker, "")
	s = trimEcho(s, w.linePrefix)
	if w.midLine() {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
	} else {
		s = firstLines(s, maxLines)
	}
	if w.linePrefix == "" || strings.TrimSpace(w.linePrefix) == "" {
		// At the start of a line the model often repeats the indentation
		// the line already has.
		s = strings.TrimPrefix(s, w.linePrefix)
	}
	s = balance(s, w.linePrefix)
	s = trimOverlap(s, w.suffix)
	s = strings.TrimRight(s, " \t\n") // what comes next is the suffix's
	if strings.TrimSpace(s) == "" || repeatsSuffix(s, w.suffix) {
		return ""
	}
	return s
}

// unfence takes off a Markdown code fence the answer is wrapped in.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return s
	}
	nl := strings.IndexByte(t, '\n')
	if nl < 0 {
		return ""
	}
	body := t[nl+1:]
	if end := strings.LastIndex(body, "```"); end >= 0 {
		body = body[:end]
	}
	return strings.TrimSuffix(body, "\n")
}

// trimEcho takes off the start of s when it repeats the cursor's line up
// to the cursor (the model restating the line it completes).
func trimEcho(s, linePrefix string) string {
	head := strings.TrimLeft(linePrefix, " \t")
	if len(head) < 2 {
		return s
	}
	if rest, ok := strings.CutPrefix(strings.TrimLeft(s, " \t"), head); ok {
		return rest
	}
	return s
}

// firstLines is s's first n lines.
func firstLines(s string, n int) string {
	at := 0
	for range n {
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			return s
		}
		at += i + 1
	}
	return strings.TrimSuffix(s[:at], "\n")
}

// closerOf is the bracket that closes open (0 for another byte).
func closerOf(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	}
	return 0
}

// balance cuts s before the first closing bracket that neither s nor the
// cursor's line before it opened: the suffix, or the model's mistake,
// closes it, and inserted it would be one too many. Brackets inside
// quotes are not counted.
func balance(s, linePrefix string) string {
	var open []byte
	scan := func(text string, cutAt bool) int {
		var quote byte
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case quote != 0:
				if c == '\\' {
					i++
				} else if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'' || c == '`':
				quote = c
			case c == '(' || c == '[' || c == '{':
				open = append(open, c)
			case c == ')' || c == ']' || c == '}':
				if n := len(open); n > 0 && closerOf(open[n-1]) == c {
					open = open[:n-1]
				} else if cutAt {
					return i
				}
			case c == '\n':
				quote = 0 // an unclosed quote does not run on
			}
		}
		return -1
	}
	scan(linePrefix, false)
	if i := scan(s, true); i >= 0 {
		return strings.TrimRight(s[:i], " \t")
	}
	return s
}

// trimOverlap takes off the end of s that the suffix starts with: the
// model writing out what is already after the cursor. Whole lines are
// matched across lines; on the cursor's line, any overlap of at least one
// non-space character.
func trimOverlap(s, suffix string) string {
	if suffix == "" || s == "" {
		return s
	}
	// Lines the answer ends with that the suffix begins with.
	sLines := strings.Split(s, "\n")
	rest := strings.TrimLeft(suffix, " \t")
	if i := strings.IndexByte(suffix, '\n'); i >= 0 && strings.TrimSpace(suffix[:i]) == "" {
		rest = suffix[i+1:]
	}
	restLines := strings.Split(rest, "\n")
	for k := min(len(sLines)-1, len(restLines)); k > 0; k-- {
		if equalTrimmed(sLines[len(sLines)-k:], restLines[:k]) && strings.TrimSpace(strings.Join(restLines[:k], "")) != "" {
			s = strings.Join(sLines[:len(sLines)-k], "\n")
			break
		}
	}
	// The end of the answer's last line that the suffix's first line
	// starts with.
	first := suffix
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	first = strings.TrimLeft(first, " \t")
	for k := min(len(s), len(first)); k > 0; k-- {
		if strings.HasSuffix(s, first[:k]) && strings.TrimSpace(first[:k]) != "" {
			return s[:len(s)-k]
		}
	}
	return s
}

func equalTrimmed(a, b []string) bool {
	for i := range a {
		if strings.TrimSpace(a[i]) != strings.TrimSpace(b[i]) {
			return false
		}
	}
	return true
}

// repeatsSuffix reports whether s only says again what follows the
// cursor.
func repeatsSuffix(s, suffix string) bool {
	t := strings.TrimSpace(s)
	return t != "" && strings.HasPrefix(strings.TrimSpace(suffix), t)
}
