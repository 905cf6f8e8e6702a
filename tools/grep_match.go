package tools

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// grepMatcher finds the lines a grep_search pattern matches. A line
// matches when the case-insensitive regexp matches it alone (without its
// line ending), as in Gemini CLI; the whole file is scanned for a literal
// every match must contain, and only the lines holding it are run through
// the regexp.
type grepMatcher struct {
	re   *regexp.Regexp // (?i)pattern, run on one line
	tree *syntax.Regexp // the parsed pattern, for engines that translate it
	// lit is a string every match contains, or nil; with fold it is
	// lower-case ASCII, searched for in a lower-cased copy of the file.
	lit  []byte
	fold bool
}

func newGrepMatcher(pattern string) (*grepMatcher, error) {
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		// Compile the pattern alone so the message does not show our prefix.
		_, err = regexp.Compile(pattern)
		return nil, err
	}
	tree, err := syntax.Parse("(?i)"+pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	m := &grepMatcher{re: re, tree: tree}
	if runes, fold := requiredLiteral(tree); len(runes) > 0 {
		m.lit, m.fold = searchableLiteral(runes, fold), fold
	}
	return m, nil
}

// requiredLiteral returns a literal that every match of re contains.
func requiredLiteral(re *syntax.Regexp) (runes []rune, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestFold, bestLen := []rune(nil), false, 0
		for _, sub := range re.Sub {
			r, f := requiredLiteral(sub)
			if n := len(searchableLiteral(r, f)); n > bestLen {
				best, bestFold, bestLen = r, f, n
			}
		}
		return best, bestFold
	}
	return nil, false
}

// searchableLiteral is the longest part of a literal that can be searched
// for as bytes: without a line break (a match is within one line) and,
// case-insensitively, ASCII letters whose only case variants are ASCII
// (not k and s: the Kelvin sign and the long s fold to them).
func searchableLiteral(runes []rune, fold bool) []byte {
	var best, cur []byte
	flush := func() {
		if len(cur) > len(best) {
			best = cur
		}
		cur = nil
	}
	for _, r := range runes {
		switch {
		case r == '\n' || r == '\r':
			flush()
		case fold && (r >= utf8.RuneSelf || strings.ContainsRune("kKsS", r)):
			flush()
		case fold:
			cur = append(cur, lowerASCII(byte(r)))
		default:
			cur = utf8.AppendRune(cur, r)
		}
	}
	flush()
	return best
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// lowerInto is src with ASCII letters lower-cased, in dst's storage:
// eight bytes at a time (a byte is in A-Z when adding 0x3f to its low
// seven bits sets its top bit, adding 0x25 does not, and it is ASCII).
func lowerInto(dst, src []byte) []byte {
	dst = slices.Grow(dst[:0], len(src))[:len(src)]
	const ones, high = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		low7 := w &^ high
		upper := (low7 + 0x3f*ones) &^ (low7 + 0x25*ones) &^ w & high
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(src); i++ {
		dst[i] = lowerASCII(src[i])
	}
	return dst
}

// search returns the matching lines of content, at most limit; scratch
// holds the lower-cased copy a case-insensitive literal is searched in.
func (m *grepMatcher) search(content []byte, limit int, scratch *[]byte) []grepMatch {
	hay := content
	if m.lit != nil && m.fold {
		*scratch = lowerInto(*scratch, content)
		hay = *scratch
	}
	var out []grepMatch
	line, counted := 1, 0 // the line number at offset counted
	for pos := 0; pos < len(content) && len(out) < limit; {
		start := pos
		if m.lit != nil {
			i := bytes.Index(hay[pos:], m.lit)
			if i < 0 {
				break
			}
			start = pos + bytes.LastIndexByte(content[pos:pos+i], '\n') + 1
		}
		end := bytes.IndexByte(content[start:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += start
		}
		text := bytes.TrimSuffix(content[start:end], []byte("\r"))
		if m.re.Match(text) {
			line += bytes.Count(content[counted:start], []byte("\n"))
			counted = start
			shown, _ := cutLine(strings.TrimSpace(string(text)))
			out = append(out, grepMatch{line: line, text: shown})
		}
		pos = end + 1
	}
	return out
}
