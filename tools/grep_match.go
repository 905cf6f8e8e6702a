package tools

import (
	"bytes"
	"regexp"
	"regexp/syntax"
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
	// lower-case ASCII, searched for ASCII case-insensitively.
	lit  []byte
	fold bool
	// anchor is the byte of lit scanned for when fold: a non-letter other
	// than a blank if lit has one, else its rarest letter (both cases are
	// scanned for).
	anchor int
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
		m.anchor = pickAnchor(m.lit)
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

// letterRarity orders letters from the most to the least common in text.
const letterRarity = "etaoinsrhldcumfpgwybvkxjqz"

func pickAnchor(lit []byte) int {
	best, bestRank := 0, -1
	for i, b := range lit {
		rank := strings.IndexByte(letterRarity, b)
		if rank < 0 && b != ' ' && b != '\t' {
			return i // not a letter nor a blank (common): one case only
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// index is the offset of the first occurrence of m.lit in s, or -1.
func (m *grepMatcher) index(s []byte) int {
	if !m.fold {
		return bytes.Index(s, m.lit)
	}
	lo := m.lit[m.anchor]
	up := lo
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	for pos := m.anchor; pos < len(s); {
		i := bytes.IndexByte(s[pos:], lo)
		if up != lo {
			end := len(s) - pos
			if i >= 0 {
				end = i
			}
			if j := bytes.IndexByte(s[pos:pos+end], up); j >= 0 {
				i = j
			}
		}
		if i < 0 {
			return -1
		}
		start := pos + i - m.anchor
		if start+len(m.lit) <= len(s) && equalFoldASCII(s[start:start+len(m.lit)], m.lit) {
			return start
		}
		pos += i + 1
	}
	return -1
}

// equalFoldASCII reports whether s lower-cased (ASCII letters only) is lower.
func equalFoldASCII(s, lower []byte) bool {
	for i, b := range s {
		if lowerASCII(b) != lower[i] {
			return false
		}
	}
	return true
}

// search returns the matching lines of content, at most limit.
func (m *grepMatcher) search(content []byte, limit int) []grepMatch {
	var out []grepMatch
	line, counted := 1, 0 // the line number at offset counted
	for pos := 0; pos < len(content) && len(out) < limit; {
		start := pos
		if m.lit != nil {
			i := m.index(content[pos:])
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
