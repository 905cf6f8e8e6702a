package gitignore

// git's own character classes (ctype.c), ASCII only whatever the locale:
// a byte past 0x7f is in none of them and has no case.

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool { return isUpper(c) || isLower(c) }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// isGlobSpecial: the bytes that end a pattern's literal prefix.
func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// inNamedClass reports whether c is in the class [:name:], and false
// for a name git does not know. With fold, [:upper:] takes lower-case
// letters too, as git's does.
func inNamedClass(name string, c byte, fold bool) (in, known bool) {
	switch name {
	case "alnum":
		return isAlpha(c) || isDigit(c), true
	case "alpha":
		return isAlpha(c), true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit(c), true
	case "graph":
		return 0x21 <= c && c <= 0x7e, true
	case "lower":
		return isLower(c), true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return 0x21 <= c && c <= 0x7e && !isAlpha(c) && !isDigit(c), true
	case "space":
		// git's isspace: not \v nor \f.
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpper(c) || (fold && isLower(c)), true
	case "xdigit":
		return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}
