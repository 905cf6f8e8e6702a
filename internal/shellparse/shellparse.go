package shellparse

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Parse parses command as bash.
func Parse(command string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
}

// StaticText is word after quote removal, when bash would not change it
// further: no expansion, glob, brace or tilde. A lone "[" (the test
// command) is text too.
func StaticText(word *syntax.Word) (string, bool) {
	if word == nil {
		return "", false
	}
	var b strings.Builder
	for i, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			s := p.Value
			if s == "[" && len(word.Parts) == 1 {
				return s, true
			}
			for j := 0; j < len(s); j++ {
				switch c := s[j]; {
				case c == '\\' && j+1 < len(s):
					j++
					b.WriteByte(s[j])
				case strings.IndexByte("*?[{", c) >= 0, c == '~' && i == 0 && j == 0:
					return "", false
				default:
					b.WriteByte(c)
				}
			}
		case *syntax.SglQuoted:
			if p.Dollar { // $'…' escapes: not worth decoding here
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDoubleQuoted(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// IsStaticIn reports whether word is static text equal to one of texts.
func IsStaticIn(word *syntax.Word, texts ...string) bool {
	text, ok := StaticText(word)
	return ok && slices.Contains(texts, text)
}

// unescapeDoubleQuoted removes the backslashes that escape a character
// inside double quotes.
func unescapeDoubleQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// VariableNameArg reports whether the builtin name, called with args (the
// words after the name), may read one of them as a variable name, and
// which argument says so (nil when the builtin always does): read,
// mapfile, readarray, unset and getopts take names; printf does after -v
// (or a first argument that may expand to -v); test, [ and wait do after
// -v, -R or -p, or any argument that may expand to one of them.
func VariableNameArg(name string, args []*syntax.Word) (*syntax.Word, bool) {
	switch name {
	case "read", "mapfile", "readarray", "unset", "getopts":
		return nil, true
	case "printf":
		if len(args) == 0 {
			return nil, false
		}
		opt, ok := StaticText(args[0])
		return args[0], !ok || strings.HasPrefix(opt, "-v")
	case "test", "[", "wait":
		for _, arg := range args {
			if text, ok := StaticText(arg); !ok || optionTakesName(name, text) {
				return arg, true
			}
		}
	}
	return nil, false
}

// optionTakesName reports whether arg makes the builtin test, [ or wait read
// the next argument as a variable name.
func optionTakesName(builtin, arg string) bool {
	if builtin == "wait" {
		return strings.HasPrefix(arg, "-") && strings.Contains(arg, "p")
	}
	return arg == "-v" || arg == "-R"
}
