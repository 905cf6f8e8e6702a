package tools

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// grepMatcher finds the lines a grep_search pattern matches. A line
// matches when the case-insensitive regexp matches it alone (without its
// line ending), as in Gemini CLI; the whole file is scanned for a literal
// every match must contain, and only the lines holding it are run through
// the regexp (none are when the pattern is that literal).
type grepMatcher struct {
	re   *regexp.Regexp // (?i)pattern, run on one line
	tree *syntax.Regexp // the parsed pattern, for engines that translate it
	lit  *grepLiteral   // a literal every match contains, or nil
	// exact: a line matches exactly when it holds lit, so the regexp
	// need not run.
	exact bool
	// exclude, when set, takes out the lines it matches (exclude_pattern).
	exclude *regexp.Regexp
}

// matchLine reports whether one line (without its line ending) is a
// match: the pattern matches it and exclude does not.
func (m *grepMatcher) matchLine(text []byte) bool {
	return m.re.Match(text) && !m.excluded(text)
}

func (m *grepMatcher) excluded(text []byte) bool {
	return m.exclude != nil && m.exclude.Match(text)
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
		if b := searchableLiteral(runes, fold); len(b) > 0 {
			m.lit = newGrepLiteral(b, fold)
			// Every rune made it into the bytes: finding them is matching.
			m.exact = tree.Op == syntax.OpLiteral && utf8.RuneCount(b) == len(runes)
		}
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
// for as bytes: without a line break (a match is within one line), without
// U+FFFD (the regexp reads every invalid byte as it) and,
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
		case r == '\n' || r == '\r' || r == utf8.RuneError:
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

// search returns the matching lines of content, at most limit; the
// literal is found in content itself, not in a lower-cased copy.
func (m *grepMatcher) search(content []byte, limit int) []grepMatch {
	var find literalFinder
	if m.lit != nil {
		find = m.lit.finder(content)
	}
	var out []grepMatch
	line, counted := 1, 0 // the line number at offset counted
	for pos := 0; pos < len(content) && len(out) < limit; {
		start := pos
		if m.lit != nil {
			i := find.index(pos)
			if i < 0 {
				break
			}
			start = pos + bytes.LastIndexByte(content[pos:i], '\n') + 1
		}
		end := bytes.IndexByte(content[start:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += start
		}
		text := bytes.TrimSuffix(content[start:end], []byte("\r"))
		if (m.exact || m.re.Match(text)) && !m.excluded(text) {
			line += bytes.Count(content[counted:start], []byte("\n"))
			counted = start
			out = append(out, grepMatch{line: line, text: shownLine(text)})
		}
		pos = end + 1
	}
	return out
}

// shownLine is a line as grep_search shows it: its indentation kept, its
// trailing white space cut (JavaScript's trimEnd, as Gemini CLI 0.61
// prints match and context lines), and cut at maxLineLen characters.
func shownLine(text []byte) string {
	shown, _ := cutLine(strings.TrimRightFunc(string(text), func(r rune) bool {
		return r == '\uFEFF' || r != '\u0085' && unicode.IsSpace(r) // JavaScript's white space
	}))
	return shown
}

// grepLiteral is a byte string searched for, as is (bytes.Index) or with
// ASCII case folded, then in place rather than in a lower-cased copy of
// the text: a scan for the literal's rarest bytes in source code (see
// literalFinder) and a folded compare at each candidate.
type grepLiteral struct {
	lit []byte // lower-case when fold
	// fold: letters match either case. Then mask has 0x20 where lit has a
	// letter: a byte b matches lit[i] when b|mask[i] == lit[i].
	fold bool
	mask []byte
	// rare and rare2 are the offsets of the two bytes of lit rarest in
	// source code (equal when lit is one byte).
	rare, rare2 int
}

func newGrepLiteral(lit []byte, fold bool) *grepLiteral {
	l := &grepLiteral{lit: lit}
	for _, b := range lit {
		if fold && isASCIILetter(b) {
			l.mask = append(l.mask, 0x20)
			l.fold = true
		} else {
			l.mask = append(l.mask, 0)
		}
	}
	if !l.fold {
		l.mask = nil // no letters: bytes.Index is exact
		return l
	}
	l.rare, l.rare2 = rarestBytes(lit)
	return l
}

func isASCIILetter(b byte) bool {
	return 'a' <= b|0x20 && b|0x20 <= 'z'
}

// rarestBytes are the offsets of the two bytes of a lower-case literal
// cheapest to scan for case-insensitively, the cheapest first (the same
// offset twice for a one-byte literal).
func rarestBytes(lit []byte) (rare, rare2 int) {
	for i := range lit {
		if foldScanCost(lit[i]) < foldScanCost(lit[rare]) {
			rare = i
		}
	}
	rare2 = rare
	for i := range lit {
		if i != rare && (rare2 == rare || foldScanCost(lit[i]) < foldScanCost(lit[rare2])) {
			rare2 = i
		}
	}
	return rare, rare2
}

// secondPassCost is what a second IndexByte pass over the text (for a
// letter's other case) costs, in candidates per 65536 bytes: a pass
// costs about what a candidate every 200 bytes does.
const secondPassCost = 65536 / 200

// foldScanCost estimates the work of scanning source code for b
// case-insensitively: its candidates per 65536 bytes, a letter's two
// cases and their two passes.
func foldScanCost(b byte) int {
	c := int(sourceByteFrequency[b])
	if isASCIILetter(b) {
		c += int(sourceByteFrequency[b^0x20]) + secondPassCost
	}
	return c
}

// literalFinder finds a grepLiteral's occurrences in one text, front to
// back. It scans for the rare byte with bytes.IndexByte while that byte
// is rare in the text; where it proves common (a call per few dozen
// bytes costs more than the scan saves), a SWAR scan for the two rare
// bytes at once takes over.
type literalFinder struct {
	l   *grepLiteral
	hay []byte
	// cases are the rare byte's cases, next where each next occurs (-1:
	// not yet looked for, len(hay): nowhere); ncases is 1 for a non-letter.
	cases  [2]byte
	next   [2]int
	ncases int
	// misses counts the rare byte's occurrences that were not the
	// literal's; past denseMisses, the pair scan runs.
	misses int
	dense  bool
}

// denseMisses is how many misses the rare-byte scan may have by offset
// i: one per denseSpacing bytes, after a start (IndexByte beats the SWAR
// scan when its calls are further apart).
func denseMisses(i int) int { return 8 + i/denseSpacing }

const denseSpacing = 48

func (l *grepLiteral) finder(hay []byte) literalFinder {
	f := literalFinder{l: l, hay: hay, next: [2]int{-1, -1}}
	if l.fold {
		b := l.lit[l.rare]
		f.cases, f.ncases = [2]byte{b, b &^ 0x20}, 1
		if isASCIILetter(b) {
			f.ncases = 2
		}
	}
	return f
}

// index returns the offset of the first occurrence of the literal at or
// after from, or -1. Successive calls must not go backwards.
func (f *literalFinder) index(from int) int {
	l := f.l
	switch {
	case !l.fold:
		if i := bytes.Index(f.hay[from:], l.lit); i >= 0 {
			return from + i
		}
		return -1
	case f.dense:
		return f.indexPair(from)
	}
	n := len(l.lit)
	for start := from; start+n <= len(f.hay); start++ {
		at := f.nextRare(start + l.rare)
		if at < 0 || at-l.rare+n > len(f.hay) {
			return -1
		}
		start = at - l.rare
		if f.hay[start+l.rare2]|l.mask[l.rare2] == l.lit[l.rare2] && l.equalFold(f.hay[start:start+n]) {
			return start
		}
		if f.misses++; f.misses > denseMisses(start) {
			f.dense = true
			return f.indexPair(start + 1)
		}
	}
	return -1
}

// nextRare is the offset of the first byte at or after from that is the
// rare byte in either case, or -1.
func (f *literalFinder) nextRare(from int) int {
	best := len(f.hay)
	for k := range f.ncases {
		if f.next[k] < from {
			f.next[k] = len(f.hay)
			if i := bytes.IndexByte(f.hay[from:], f.cases[k]); i >= 0 {
				f.next[k] = from + i
			}
		}
		best = min(best, f.next[k])
	}
	if best == len(f.hay) {
		return -1
	}
	return best
}

// indexPair is index by the pair scan.
func (f *literalFinder) indexPair(from int) int {
	l, hay := f.l, f.hay
	n := len(l.lit)
	s := from
	for {
		var z uint64
		if s, z = l.pairCandidates(hay, s); z == 0 {
			break
		}
		for ; z != 0; z &= z - 1 {
			if i := s + bits.TrailingZeros64(z)/8; l.equalFold(hay[i : i+n]) {
				return i
			}
		}
		s += 8
	}
	for ; s+n <= len(hay); s++ {
		if l.equalFold(hay[s : s+n]) {
			return s
		}
	}
	return -1
}

// pairCandidates scans hay from s, eight offsets at a time, for offsets
// where both rare bytes are (in either case): it returns the first eight
// holding some, with the top bit of byte j of z set for each at s+j; or,
// with z zero, where the scan ended, eight offsets from the end of room
// for the literal.
func (l *grepLiteral) pairCandidates(hay []byte, s int) (int, uint64) {
	const lo7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	const ones = 0x0101010101010101
	r1, r2 := l.rare, l.rare2
	m1, c1 := uint64(l.mask[r1])*ones, uint64(l.lit[r1])*ones
	m2, c2 := uint64(l.mask[r2])*ones, uint64(l.lit[r2])*ones
	end := len(hay) - max(r1, r2, len(l.lit)-1) - 8 // the last s with room
	if end < s {
		return s, 0
	}
	a, b := hay[r1:end+r1+8], hay[r2:end+r2+8]
	for ; s <= end; s += 8 {
		x1 := (binary.LittleEndian.Uint64(a[s:]) | m1) ^ c1
		x2 := (binary.LittleEndian.Uint64(b[s:]) | m2) ^ c2
		x := x1 | x2 // a zero byte where both rare bytes are
		// The top bit of each zero byte of x (exactly: no carries).
		if z := ^((x&lo7 + lo7) | x) & high; z != 0 {
			return s, z
		}
	}
	return s, 0
}

// equalFold reports whether hay (as long as the literal) is the literal
// with ASCII case folded, eight bytes at a time.
func (l *grepLiteral) equalFold(hay []byte) bool {
	lit, mask := l.lit, l.mask
	for len(lit) >= 8 {
		w := binary.LittleEndian.Uint64(hay) | binary.LittleEndian.Uint64(mask)
		if w != binary.LittleEndian.Uint64(lit) {
			return false
		}
		hay, lit, mask = hay[8:], lit[8:], mask[8:]
	}
	for i := range lit {
		if hay[i]|mask[i] != lit[i] {
			return false
		}
	}
	return true
}

// sourceByteFrequency is how often each byte occurs in source code, per
// 65536 bytes: the mean of its frequencies in five bodies of code, Go's
// GOROOT/src (88 MB), a Go module cache (458 MB), C headers (108 MB),
// Python's library (11 MB) and JavaScript packages (7 MB). Read only.
var sourceByteFrequency = [256]uint16{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 919, 1773, 0, 0, 0, 0, 0, // 0x00
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
	12196, 60, 415, 173, 11, 26, 71, 307, 721, 721, 312, 50, 933, 246, 850, 618, // 0x20
	930, 341, 263, 177, 174, 144, 180, 97, 135, 124, 407, 163, 44, 457, 78, 21, // 0x30
	16, 439, 161, 382, 235, 516, 205, 139, 111, 406, 25, 68, 343, 205, 354, 336, // 0x40
	313, 38, 376, 564, 471, 144, 109, 64, 117, 57, 17, 117, 146, 117, 4, 1035, // 0x50
	68, 2105, 443, 1339, 1221, 4268, 1001, 667, 816, 2224, 82, 316, 1457, 737, 2316, 2132, // 0x60
	1010, 82, 2399, 2391, 3125, 1038, 349, 273, 693, 450, 57, 261, 45, 260, 2, 0, // 0x70
	6, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // 0x80
	1, 1, 1, 1, 2, 2, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, // 0x90
	1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // 0xa0
	2, 1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 1, 1, 3, 1, 3, // 0xb0
	0, 0, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, // 0xc0
	6, 3, 0, 0, 0, 1, 0, 1, 2, 2, 0, 0, 0, 0, 0, 0, // 0xd0
	10, 3, 8, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, // 0xe0
	1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xf0
}
