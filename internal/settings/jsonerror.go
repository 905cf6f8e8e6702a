package settings

import "strings"

// jsonMistake says in plain words what encoding/json's syntax error msg
// found wrong: what was expected there and what was found instead
// ("expected a comma or } after the value, found '\"'"), for a person
// to fix the file. A message it does not know is returned as it is.
//
// encoding/json words its syntax errors "invalid character C CONTEXT"
// (its scanner's, unchanged since Go 1) or "unexpected end of JSON
// input"; only the wording is remade here, the position is the caller's.
func jsonMistake(msg string) string {
	if msg == "unexpected end of JSON input" {
		return "expected more: the file ends before its object does (a } or ] missing?)"
	}
	rest, ok := strings.CutPrefix(msg, "invalid character ")
	if !ok {
		return msg
	}
	char, context, ok := cutQuotedChar(rest)
	if !ok {
		return msg
	}
	expected := expectedIn(context)
	if expected == "" {
		return msg
	}
	return expected + ", found " + describeChar(char)
}

// cutQuotedChar cuts the character encoding/json quotes at the start of
// s (such as 'x', '\n' or '"') from the words after it; a quote
// character is itself escaped.
func cutQuotedChar(s string) (char, context string, ok bool) {
	if len(s) < 3 || s[0] != '\'' {
		return "", "", false
	}
	end := strings.Index(s[2:], "' ") // a quote inside is escaped or first
	if end < 0 {
		return "", "", false
	}
	return s[:end+3], s[end+4:], true
}

// expectedIn is what encoding/json wanted where its message's words
// (after the character) say it was; "" for words it does not know.
func expectedIn(context string) string {
	switch {
	case context == "looking for beginning of value":
		return "expected a value (a string in double quotes, a number, an object, an array, true, false or null)"
	case context == "looking for beginning of object key string":
		return "expected a key in double quotes"
	case context == "after object key":
		return "expected a colon after the key"
	case context == "after object key:value pair":
		return "expected a comma or } after the value (a comma missing?)"
	case context == "after array element":
		return "expected a comma or ] after the array's element (a comma missing?)"
	case context == "after top-level value":
		return "expected the end of the file after the object's closing } (a } too many?)"
	case context == "in string literal":
		return "expected the string to go on or end with a double quote; a line break or tab in a string is written \\n or \\t"
	case context == "in string escape code":
		return `expected an escape JSON has after the \ (\" \\ \/ \b \f \n \r \t or \u and four hexadecimal digits)`
	case context == `in \u hexadecimal character escape`:
		return `expected four hexadecimal digits after \u`
	case strings.HasPrefix(context, "in literal "):
		return "expected true, false or null, written in lower case"
	case strings.HasSuffix(context, "numeric literal"):
		return "expected a number as JSON writes them (digits, a point and digits, an exponent)"
	}
	return ""
}

// describeChar is a quoted character as a person reads it.
func describeChar(quoted string) string {
	switch quoted {
	case `'\n'`, `'\r'`:
		return "a line break"
	case `'\t'`:
		return "a tab"
	}
	return quoted
}
