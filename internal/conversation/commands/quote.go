package commands

import (
	"strings"
)

// shellQuote makes arg one word of a POSIX shell command, exactly as
// Gemini CLI's escapeShellArg does for bash (shell-quote 1.8's quote), so
// a command's {{args}} inside !{…} reaches the same command line: "" for
// no argument, single quotes around text with spaces, quotes or
// backslashes but no single quote, double quotes (escaping " \ $ ` !)
// around text with a single quote, else each special character
// backslash-escaped.
func shellQuote(arg string) string {
	switch {
	case arg == "":
		return ""
	case strings.ContainsFunc(arg, func(r rune) bool { return r == '"' || r == '\\' || isSpace(r) }) && !strings.Contains(arg, "'"):
		return "'" + arg + "'"
	case strings.ContainsFunc(arg, func(r rune) bool { return r == '"' || r == '\'' || isSpace(r) }):
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range arg {
			if strings.ContainsRune("\"\\$`!", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		return b.String()
	}
	return escapeSpecials(arg)
}

// escapeSpecials backslash-escapes shell-quote's special characters,
// leaving a drive letter's colon ("C:") before one unescaped, as its
// pattern /([A-Za-z]:)?([#!"$&'()*,:;<=>?@[\\\]^`{|}])/g does, and "~"
// too, which shell-quote misses: bash reads "~" (and "a=~") as the home
// directory, not what was typed.
func escapeSpecials(s string) string {
	const specials = "#!\"$&'()*,:;<=>?@[\\]^`{|}~"
	isLetter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	var b strings.Builder
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
