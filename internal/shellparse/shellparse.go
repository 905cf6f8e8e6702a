package shellparse

import (
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Parse parses command as bash, when it is within the bounds the parser
// is let read (CheckBounds: a *BoundError otherwise).
func Parse(command string) (*syntax.File, error) {
	if err := CheckBounds(command); err != nil {
		return nil, err
	}
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
}

// StaticText is word after quote removal, when bash would not change it
// further: no expansion, glob, brace or tilde, no $'…' or $"…". A lone
// "[" (the test command) is text too.
func StaticText(word *syntax.Word) (string, bool) { return staticText(word, false) }

// Text is StaticText with $'…' decoded as bash decodes it: the word
// as the program it is passed to receives it, when that is known.
func Text(word *syntax.Word) (string, bool) { return staticText(word, true) }

// staticText is StaticText, decoding $'…' when decodeANSIC.
func staticText(word *syntax.Word, decodeANSIC bool) (string, bool) {
	if word == nil {
		return "", false
	}
	if text, ok := plainLit(word); ok {
		return text, true
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
			text, ok := p.Value, !p.Dollar
			if p.Dollar && decodeANSIC {
				text, ok = ansiC(p)
			}
			if !ok {
				return "", false
			}
			b.WriteString(text)
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

// plainLit is word's text when it is one literal that quote removal and
// expansion leave as it is (most words): no escape, glob, brace or tilde.
func plainLit(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 1 {
		return "", false
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(lit.Value, "\\*?[{") || strings.HasPrefix(lit.Value, "~") {
		return "", false
	}
	return lit.Value, true
}

// ansiC is the text of $'…' as bash decodes it: its escapes, and the
// end of the text at a NUL. \c (a control character), a \u or \U that
// is no Unicode character, and an octal escape above \377 or before an 8
// or 9 make it unknown.
func ansiC(p *syntax.SglQuoted) (string, bool) {
	var b strings.Builder
	v := p.Value
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		n, ok := ansiCEscape(&b, v[i+1:])
		if !ok {
			return "", false
		}
		i += n
	}
	text, _, _ := strings.Cut(b.String(), "\x00")
	return text, true
}

// ansiCEscape writes what the escape at the start of rest (after its
// backslash) stands for, and says how many bytes of rest it takes.
func ansiCEscape(b *strings.Builder, rest string) (int, bool) {
	c := rest[0]
	if i := strings.IndexByte(`abeEfnrtv\'"?`, c); i >= 0 {
		b.WriteByte("\a\b\x1b\x1b\f\n\r\t\v\\'\"?"[i])
		return 1, true
	}
	switch c {
	case 'c':
		return 0, false
	case 'x':
		if strings.HasPrefix(rest, "x{") {
			// bash 5.2 reads \x{HH…} (its value's low byte), mvdan.cc/sh
			// the text as written: unknown (issue 95: $'\x{72}\x{6d}' is rm).
			return 0, false
		}
		n, value := digits(rest[1:], 16, 2)
		if n == 0 {
			b.WriteString(`\x`)
			return 1, true
		}
		b.WriteByte(byte(value))
		return 1 + n, true
	case 'u', 'U':
		width := 4
		if c == 'U' {
			width = 8
		}
		n, value := digits(rest[1:], 16, width)
		if n == 0 {
			b.WriteByte('\\')
			b.WriteByte(c)
			return 1, true
		}
		if !utf8.ValidRune(rune(value)) {
			return 0, false
		}
		b.WriteRune(rune(value))
		return 1 + n, true
	}
	if n, value := digits(rest, 8, 3); n > 0 {
		// Above \377 bash keeps the low byte, mvdan.cc/sh writes 0xff; an
		// 8 or 9 among the three digits bash ends the number at, while
		// mvdan.cc/sh reads a NUL: where they differ, the text is unknown.
		decimal, _ := digits(rest, 10, 3)
		b.WriteByte(byte(value))
		return n, value <= 0xff && decimal == n
	}
	b.WriteByte('\\')
	b.WriteByte(c)
	return 1, true
}

// digits reads up to most digits of base from the start of s: how many,
// and their value.
func digits(s string, base, most int) (int, int) {
	n, value := 0, 0
	for ; n < most && n < len(s); n++ {
		d := strings.IndexByte("0123456789abcdef"[:base], lower(s[n]))
		if d < 0 {
			break
		}
		value = value*base + d
	}
	return n, value
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// IsStaticIn reports whether word is static text equal to one of texts.
func IsStaticIn(word *syntax.Word, texts ...string) bool {
	text, ok := StaticText(word)
	return ok && slices.Contains(texts, text)
}

// unescapeDoubleQuoted removes the backslashes that escape a character
// inside double quotes. (The parser has removed line continuations.)
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
