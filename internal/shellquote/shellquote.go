package shellquote

import (
	"strings"
	"unicode"
)

// Quote is value as one shell word, written as shell-quote 1.8's quote
// writes it (Gemini CLI 0.61's escapeShellArg for bash) but for the two
// places the package's doc names: "" for no value (no word at all);
// single quotes around a value with blanks, double quotes or backslashes
// but no single quote; double quotes around one with a single quote,
// escaping " \ $ and `; else each special character backslash-escaped.
func Quote(value string) string {
	switch {
	case value == "":
		return ""
	case strings.ContainsFunc(value, func(r rune) bool { return r == '"' || r == '\\' || isSpace(r) }) && !strings.Contains(value, "'"):
		return "'" + value + "'"
	case strings.ContainsFunc(value, func(r rune) bool { return r == '"' || r == '\'' || isSpace(r) }):
		// Byte by byte: the four escaped are ASCII, and every other byte,
		// invalid UTF-8 too, must reach the shell as it is (a range over
		// runes would write U+FFFD for it).
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(value); i++ {
			if strings.IndexByte("\"\\$`", value[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(value[i])
		}
		b.WriteByte('"')
		return b.String()
	}
	return escapeSpecials(value)
}

// isSpace is JavaScript's \s, which shell-quote looks for.
func isSpace(r rune) bool {
	return r == '\ufeff' || unicode.Is(unicode.White_Space, r) && r != '\u0085'
}

// escapeSpecials backslash-escapes shell-quote's special characters,
// leaving a drive letter's colon ("C:") before one unescaped, as its
// pattern /([A-Za-z]:)?([#!"$&'()*,:;<=>?@[\\\]^`{|}])/g does; and a ~
// starting the word, which it leaves bare. (A ~ further on is left bare
// too: a shell expands none there, = and : being escaped, and a path in a
// hook's command may stand inside double quotes, which keep a backslash.)
func escapeSpecials(s string) string {
	const specials = "#!\"$&'()*,:;<=>?@[\\]^`{|}"
	isLetter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	var b strings.Builder
	if strings.HasPrefix(s, "~") {
		b.WriteByte('\\')
	}
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) && i+2 < len(s) && s[i+1] == ':' && strings.IndexByte(specials, s[i+2]) >= 0 {
			b.WriteString(s[i:i+2] + `\` + s[i+2:i+3])
			i += 2
			continue
		}
		if strings.IndexByte(specials, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
