package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// naiveGrep is grep_search's contract written plainly: each line of
// content (split at \n, less a trailing \r; a final \n ends the last line
// rather than starting one) is matched alone by the case-insensitive
// regexp, in order, until limit lines matched, each shown as grep_search
// shows a line (shownLine: indentation kept, trailing blanks cut).
func naiveGrep(re *regexp.Regexp, content []byte, limit int) []grepMatch {
	lines := bytes.SplitAfter(content, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	var out []grepMatch
	for i, line := range lines {
		if len(out) == limit {
			break
		}
		text := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if re.Match(text) {
			out = append(out, grepMatch{line: i + 1, text: shownLine(text)})
		}
	}
	return out
}

// checkSearch fails the test when the matcher's lines differ from
// naiveGrep's.
func checkSearch(t *testing.T, pattern string, content []byte, limit int) {
	t.Helper()
	m, err := newGrepMatcher(pattern)
	if err != nil {
		return // not a pattern grep_search searches with
	}
	want := naiveGrep(regexp.MustCompile("(?i)"+pattern), content, limit)
	if got := m.search(content, limit); !slices.Equal(got, want) {
		t.Fatalf("pattern %q, limit %d, in %q:\nmatched %v\nwant    %v", pattern, limit, content, got, want)
	}
}

// FuzzGrepMatcherSearch: the matcher finds exactly the lines a plain
// line-by-line regexp match does, whatever the pattern, text and limit.
//
//	go test -run '^$' -fuzz FuzzGrepMatcherSearch ./internal/tools/
func FuzzGrepMatcherSearch(f *testing.F) {
	// Case variants, the letters other scripts fold to (k, s), invalid
	// UTF-8 (read as U+FFFD), CR, NUL, long lines, matches at the very
	// start and end, and texts dense with a literal's rare bytes (the pair
	// scan's case).
	seeds := struct{ patterns, texts []string }{
		patterns: []string{
			"func main", "FUNC MAIN", `handler\(`, "todo", "return err", "package", "import",
			"newGrepMatcherForTheWholeTree", "0x7f", "the", "ent", "(?-i)Handler", `err\s*!=\s*nil`,
			"k", "K", "s", "kelvin", "\u212a", "\u017f", "ſtop", "(?-i)\u212a", "é", "É", "(?-i)é", `\x{FFFD}`, `(?-i)\x{FFFD}`,
			"a", "ab", "x$", "^x", "^$", "", ".", "a\r", "a\nb", "\x00", "a\x00b", "[kK]ey", "ab|cd", `\d+`, "mm", "m", "zz",
		},
		texts: []string{
			"",
			"\n",
			"func main() {}",
			"package main\n\nfunc main() {\n}\n",
			"FUNC MAIN\r\nFunc Main\r\nfunc\tmain\r\n",
			"xfunc mainx\nfunc mai\nunc main\nfunc main",
			"\u212aelvin \u212a\nkelvin\nKELVIN\nſtop stop\n",
			"caf\xc3\xa9 CAF\xc3\x89 \xff\xfe bad\n\xff\n",
			"a\x00b\nA\x00B\r\n\x00\n",
			"\r\n\r\n\n\r",
			strings.Repeat("m", 200) + "func main" + strings.Repeat("M", 200),
			strings.Repeat("mmmm func mai\n", 40) + "func main\n" + strings.Repeat("MAIN ", 100),
			strings.Repeat("ab", 300) + "\n" + strings.Repeat("x", 5000) + "handler(\n",
			"0x7F 0X7f\nreturn ERR\nimport (\nthe entity\nTODO: todo\n",
			"err != nil\nerr!=nil\nERR  !=  NIL\n",
			"zz",
		},
	}
	for _, p := range seeds.patterns {
		for _, text := range seeds.texts {
			f.Add(p, []byte(text), uint8(0))
		}
	}
	f.Add("func main", []byte("func main\nfunc main\nfunc main\n"), uint8(2))
	f.Fuzz(func(t *testing.T, pattern string, content []byte, limit uint8) {
		if slowRegexp(pattern) {
			return // the regexp's time, not the matcher's, would be tested
		}
		n := int(limit)
		if n == 0 {
			n = 1 << 30
		}
		checkSearch(t, pattern, content, n)
	})
}

// slowRegexp reports whether pattern compiles to a program so large
// (counted repeats of repeats, large classes) that matching takes the
// fuzzer's time.
func slowRegexp(pattern string) bool {
	re, err := syntax.Parse("(?i)"+pattern, syntax.Perl)
	if err != nil {
		return false
	}
	prog, err := syntax.Compile(re.Simplify())
	return err != nil || len(prog.Inst) > 500
}

// TestGrepMatcherSearchesEveryOffset: a literal is found at every offset
// and alignment of a text, in every case mix, near the start and the end
// where the eight-byte scans run out, in a text sparse or dense with its
// rare bytes.
func TestGrepMatcherSearchesEveryOffset(t *testing.T) {
	for _, lit := range []string{"m", "func main", "newGrepMatcherForTheWholeTree", "0x7f", "ent"} {
		for _, fill := range []string{"-", "nm", "mainfunc"} {
			for size := range 40 {
				for at := 0; at+len(lit) <= size; at++ {
					text := []byte(strings.Repeat(fill, size)[:size])
					copy(text[at:], mixCase(lit, at))
					checkSearch(t, lit, text, 1<<30)
				}
			}
		}
	}
}

// mixCase is s with the letters at positions where bit i of seed is set
// upper-cased.
func mixCase(s string, seed int) string {
	b := []byte(s)
	for i := range b {
		if seed>>(i%8)&1 != 0 && 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// TestLiteralFinderScans: the rare-byte scan and the pair scan each find
// exactly the literal's occurrences, in order.
func TestLiteralFinderScans(t *testing.T) {
	text := []byte("Func Main func mainFUNC MAIN fUnC mAiN func  main funcmain xfunc mainx func mai")
	lit := newGrepLiteral([]byte("func main"), true)
	want := []int{0, 10, 19, 29, 60}
	for _, dense := range []bool{false, true} {
		f := lit.finder(text)
		f.dense = dense
		var got []int
		for i := f.index(0); i >= 0; i = f.index(i + 1) {
			got = append(got, i)
		}
		if !slices.Equal(got, want) {
			t.Errorf("dense %v: found at %v, want %v", dense, got, want)
		}
	}
}

// TestLiteralFinderTurnsToPairScan: where the rare byte is common, the
// finder moves to the pair scan; where it is rare, it stays with
// IndexByte.
func TestLiteralFinderTurnsToPairScan(t *testing.T) {
	lit := newGrepLiteral([]byte("func main"), true)
	for _, tc := range []struct {
		text  string
		dense bool
	}{
		{strings.Repeat("M ", 1000) + "func main", true},
		{strings.Repeat("x", 2000) + "func main", false},
	} {
		f := lit.finder([]byte(tc.text))
		if i := f.index(0); i != len(tc.text)-len("func main") {
			t.Errorf("found at %d in %d bytes", i, len(tc.text))
		}
		if f.dense != tc.dense {
			t.Errorf("pair scan used: %v, want %v", f.dense, tc.dense)
		}
	}
}

// TestPairCandidates: the pair scan's candidates are exactly the offsets
// holding both rare bytes, in either case, eight at a time, in a text
// holding every pair of bytes at the rare bytes' distance.
func TestPairCandidates(t *testing.T) {
	for _, tc := range []struct {
		lit         string
		rare, rare2 int
	}{{"ab(c", 2, 0}, {"xy", 0, 1}, {"q", 0, 0}} {
		lit := newGrepLiteral([]byte(tc.lit), true)
		lit.rare, lit.rare2 = tc.rare, tc.rare2
		gap := max(tc.rare, tc.rare2) - min(tc.rare, tc.rare2)
		var text []byte
		for x := range 256 {
			for y := range 256 {
				text = append(text, byte(x))
				text = append(text, make([]byte, max(gap-1, 0))...)
				text = append(text, byte(y))
			}
		}
		for s := range 8 {
			var got []int
			at := s
			for {
				next, z := lit.pairCandidates(text, at)
				if z == 0 {
					at = next
					break
				}
				for ; z != 0; z &= z - 1 {
					got = append(got, next+trailingByte(z))
				}
				at = next + 8
			}
			var want []int
			for i := s; i < at; i++ {
				if lit.matchesAt(text, i, tc.rare) && lit.matchesAt(text, i, tc.rare2) {
					want = append(want, i)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q from %d: %d candidates, want %d", tc.lit, s, len(got), len(want))
			}
			if at+8+len(tc.lit)-1 <= len(text) {
				t.Errorf("%q from %d: the scan stopped at %d with room left in %d bytes", tc.lit, s, at, len(text))
			}
		}
	}
}

// matchesAt reports whether text at i+j is the literal's byte j, in
// either case.
func (l *grepLiteral) matchesAt(text []byte, i, j int) bool {
	return bytes.EqualFold(text[i+j:i+j+1], l.lit[j:j+1])
}

func trailingByte(z uint64) int {
	n := 0
	for z&0xff == 0 {
		z >>= 8
		n++
	}
	return n
}

// TestRarestBytes: the literal's rarest bytes in source code are scanned
// for; a letter counts both its cases.
func TestRarestBytes(t *testing.T) {
	for _, tc := range []struct {
		lit         string
		rare, rare2 byte
	}{
		{"func main", 'm', 'u'},
		{"handler(", '(', 'h'},
		{"0x7f", '7', '0'},
		{"return err", 'u', 'n'},
		{"the", 'h', 't'},
		{"a(b", '(', 'b'},
		{"x", 'x', 'x'},
		{"  q", 'q', ' '}, // q is rare, though two scans
	} {
		rare, rare2 := rarestBytes([]byte(tc.lit))
		if got := fmt.Sprintf("%c %c", tc.lit[rare], tc.lit[rare2]); got != fmt.Sprintf("%c %c", tc.rare, tc.rare2) {
			t.Errorf("%q: rarest bytes %s, want %c %c", tc.lit, got, tc.rare, tc.rare2)
		}
		if len(tc.lit) > 1 && rare == rare2 {
			t.Errorf("%q: one offset twice", tc.lit)
		}
	}
}

// TestGrepMatcherExactLiteral: the regexp is skipped only for a pattern
// that is one literal the byte compare decides exactly; the letters other
// scripts fold to (k, s), non-ASCII under folding and U+FFFD keep it.
func TestGrepMatcherExactLiteral(t *testing.T) {
	for pattern, exact := range map[string]bool{
		"func main": true, `handler\(`: true, "0x7f": true, "(?-i)Handler": true, "(?-i)é": true,
		"package": false, "s": false, "é": false, `^func`: false, "a.b": false, `(?-i)\x{FFFD}`: false, "a|b": false,
	} {
		m, err := newGrepMatcher(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if m.exact != exact {
			t.Errorf("%q: exact %v, want %v", pattern, m.exact, exact)
		}
	}
}
