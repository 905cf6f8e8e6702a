package tools

import (
	"fmt"
	"sort"
	"strings"
)

// How replace finds where old_string belongs. Models get old_string wrong
// in a few recurring ways (line endings, one level of JSON escaping too
// many, indentation, whitespace); each matchStage undoes one of them. The
// stages run in order and the first one that finds old_string at all
// decides: it applies when it found exactly the expected number of
// occurrences and fails otherwise, so a looser stage never picks one of
// several places a stricter stage found. Every stage only ever replaces
// whole occurrences it found; nothing is guessed.

type matchStage int

const (
	stageExact matchStage = iota
	stageLineEndings
	stageUnescape
	stageIndentation
	stageWhitespace
	stageLLM
)

// String names the stage in the benchmark table and test failures.
func (s matchStage) String() string {
	return [...]string{"exact", "line endings", "unescape", "indentation", "whitespace", "LLM fix"}[s]
}

// what is how a stage's matching is described to the model.
func (s matchStage) what() string {
	switch s {
	case stageLineEndings:
		return "converting its line endings to the file's"
	case stageUnescape:
		return "unescaping the over-escaped old_string and new_string"
	case stageIndentation:
		return "comparing line by line, ignoring leading and trailing whitespace (new_string was re-indented to the file's indentation)"
	case stageWhitespace:
		return "comparing line by line, ignoring whitespace differences within lines (new_string was re-indented to the file's indentation)"
	case stageLLM:
		return "an LLM correction of old_string and new_string"
	}
	return "exact match"
}

// splice is one replacement: text[start:end] becomes with.
type splice struct {
	start, end int
	with       string
}

// located is what the first stage that found old_string found.
type located struct {
	stage matchStage
	// unescaped: the indentation or whitespace stage matched the
	// unescaped old_string (and used the unescaped new_string).
	unescaped bool
	splices   []splice // ascending, one per occurrence
}

// silent reports whether the model is told nothing about the stage: an
// exact match, or one that only differs in line endings (the model reads
// every file with LF, so an LF old_string is what it was shown).
func (l located) silent() bool {
	return l.stage == stageExact || l.stage == stageLineEndings
}

// note is how a successful match is described to the model; empty when
// silent.
func (l located) note() string {
	if l.silent() {
		return ""
	}
	how := l.stage.what()
	if l.unescaped {
		how = stageUnescape.what() + ", then " + how
	}
	return "old_string matched after " + how + "."
}

// overlapping reports whether two occurrences share text; replacing both
// would be ill-defined.
func (l located) overlapping() bool {
	for i := 1; i < len(l.splices); i++ {
		if l.splices[i].start < l.splices[i-1].end {
			return true
		}
	}
	return false
}

// apply returns text with every splice made.
func (l located) apply(text string) string {
	var b strings.Builder
	last := 0
	for _, s := range l.splices {
		b.WriteString(text[last:s.start])
		b.WriteString(s.with)
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// deterministicStages are tried before the LLM fix, in this order.
var deterministicStages = []matchStage{stageExact, stageLineEndings, stageUnescape, stageIndentation, stageWhitespace}

// locate runs the deterministic stages over text (the file as it is, line
// endings included) and returns the first that found old at least once;
// ok is false when none did.
func locate(text, old, new string) (loc located, ok bool) {
	// The views are built only when a stage needs them: most calls match
	// exactly.
	var view *lfView
	var lines *fileLines
	lfv := func() *lfView {
		if view == nil {
			view = newLFView(text)
		}
		return view
	}
	byLine := func() *fileLines {
		if lines == nil {
			fl := splitLines(text)
			lines = &fl
		}
		return lines
	}
	oldLF, newLF := toLF(old), toLF(new)
	unOld, unNew := unescapeOnce(oldLF), unescapeOnce(newLF)
	overEscaped := unOld != oldLF
	for _, stage := range deterministicStages {
		switch stage {
		case stageExact:
			loc = located{stage: stage}
			for _, at := range findAll(text, old) {
				loc.splices = append(loc.splices, splice{at, at + len(old), withEOL(text[at:at+len(old)], newLF)})
			}
		case stageLineEndings:
			// Only a different question when line endings differ.
			if oldLF == old && !(strings.Contains(text, "\r\n") && strings.Contains(oldLF, "\n")) {
				continue
			}
			loc = located{stage: stage, splices: lfv().find(oldLF, newLF)}
		case stageUnescape:
			// Reached only when old_string did not match as written, so
			// an old_string that matches literally is never "fixed".
			if !overEscaped {
				continue
			}
			loc = located{stage: stage, splices: lfv().find(unOld, unNew)}
		case stageIndentation, stageWhitespace:
			norm := strings.TrimSpace
			if stage == stageWhitespace {
				norm = squeezeSpace
			}
			loc = located{stage: stage, splices: byLine().match(oldLF, newLF, norm)}
			if len(loc.splices) == 0 && overEscaped {
				loc = located{stage: stage, unescaped: true, splices: byLine().match(unOld, unNew, norm)}
			}
		}
		if len(loc.splices) > 0 {
			return loc, true
		}
	}
	return located{}, false
}

// findAll returns the offsets of the non-overlapping occurrences of sub.
func findAll(s, sub string) []int {
	if sub == "" {
		return nil
	}
	var at []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(sub)
	}
}

// lfView is text with every \r\n read as \n, and the way back to text's
// offsets, so a match found in LF terms replaces the right bytes.
type lfView struct {
	text string // the original
	lf   string
	crs  []int // LF-view offsets of the \n that each dropped \r preceded
}

func newLFView(text string) *lfView {
	v := &lfView{text: text, lf: toLF(text)}
	if len(v.lf) == len(text) {
		return v
	}
	dropped := 0
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '\r' && text[i+1] == '\n' {
			v.crs = append(v.crs, i-dropped)
			dropped++
		}
	}
	return v
}

// raw maps an LF-view offset to text's. A \r before the \n at offset x
// belongs to a span starting at x and not to one ending at x.
func (v *lfView) raw(x int) int {
	return x + sort.SearchInts(v.crs, x)
}

// find returns a splice per occurrence of old (LF) in the view; new takes
// the line endings of the text it replaces.
func (v *lfView) find(old, new string) []splice {
	var out []splice
	for _, at := range findAll(v.lf, old) {
		s := splice{start: v.raw(at), end: v.raw(at + len(old)), with: new}
		s.with = withEOL(v.text[s.start:s.end], new)
		out = append(out, s)
	}
	return out
}

// withEOL gives replacement (LF) CRLF line endings when the text it
// replaces has them.
func withEOL(replaced, replacement string) string {
	if strings.Contains(replaced, "\r\n") {
		return strings.ReplaceAll(replacement, "\n", "\r\n")
	}
	return replacement
}

// unescapeOnce undoes one level of string escaping, the way a model's
// over-escaped argument was escaped: \n \t \r \" \' \` \\ become what they
// stand for, and any other backslash is kept. One level exactly, so a
// backslash that was escaped along with everything else (\\n, meaning
// the two characters \n in code) comes out as written in the file.
func unescapeOnce(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch next := s[i+1]; next {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\'', '`', '\\':
			b.WriteByte(next)
		default:
			b.WriteByte(c)
			continue
		}
		i++
	}
	return toLF(b.String())
}

// squeezeSpace is a line compared ignoring whitespace differences: runs
// collapse to one space, dropped next to brackets and separators (so
// "f( a, b )" reads as "f(a,b)", while "return x" never reads as "returnx"
// nor "-O2 -Wall" as "-O2-Wall").
func squeezeSpace(line string) string {
	fields := strings.Fields(line)
	var b strings.Builder
	for i, f := range fields {
		if i > 0 && !strings.ContainsAny(fields[i-1][len(fields[i-1])-1:]+f[:1], "()[]{}<>,;:=") {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

// fileLines indexes text by line.
type fileLines struct {
	text   string
	starts []int // where each line begins
	ends   []int // where its content ends, before \r\n or \n
}

func splitLines(text string) fileLines {
	fl := fileLines{text: text}
	for start := 0; start < len(text); {
		nl := strings.IndexByte(text[start:], '\n')
		end, next := len(text), len(text)
		if nl >= 0 {
			end, next = start+nl, start+nl+1
		}
		fl.starts = append(fl.starts, start)
		fl.ends = append(fl.ends, start+len(strings.TrimSuffix(text[start:end], "\r")))
		start = next
	}
	return fl
}

func (fl fileLines) line(i int) string { return fl.text[fl.starts[i]:fl.ends[i]] }

// after is where the line after i begins (the end of text for the last).
func (fl fileLines) after(i int) int {
	if i+1 < len(fl.starts) {
		return fl.starts[i+1]
	}
	return len(fl.text)
}

// match finds old (LF) as a run of whole lines equal under norm, and
// returns a splice per run with new re-indented to the file. A trailing
// line break in old covers the last line's; old must have some text.
func (fl fileLines) match(old, new string, norm func(string) string) []splice {
	withBreak := strings.HasSuffix(old, "\n")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	want := make([]string, len(oldLines))
	blank := true
	for i, l := range oldLines {
		want[i] = norm(l)
		blank = blank && want[i] == ""
	}
	if blank {
		return nil
	}
	var out []splice
	normed := make([]string, len(fl.starts))
	done := make([]bool, len(fl.starts))
	normLine := func(i int) string {
		if !done[i] {
			normed[i], done[i] = norm(fl.line(i)), true
		}
		return normed[i]
	}
	unit, unitKnown := "", false
	fileUnit := func() string {
		if !unitKnown {
			unit, unitKnown = fl.indentUnit(), true
		}
		return unit
	}
	for i := 0; i+len(want) <= len(fl.starts); i++ {
		if normLine(i) != want[0] {
			continue
		}
		j := 1
		for j < len(want) && normLine(i+j) == want[j] {
			j++
		}
		if j < len(want) {
			continue
		}
		last := i + len(want) - 1
		s := splice{start: fl.starts[i], end: fl.ends[last]}
		if withBreak {
			s.end = fl.after(last)
		}
		window := make([]string, len(want))
		for k := range window {
			window[k] = fl.line(i + k)
		}
		s.with = withEOL(fl.text[s.start:s.end], reindent(oldLines, window, new, fileUnit))
		out = append(out, s)
	}
	return out
}

// indentUnit is the file's indentation step ("\t" or some spaces), or ""
// when it has none.
func (fl fileLines) indentUnit() string {
	lines := make([]string, len(fl.starts))
	for i := range lines {
		lines[i] = fl.line(i)
	}
	return indentUnit(lines)
}

// indentUnit detects the indentation step of lines: a tab when most
// indented lines start with one, else the most common change in width
// between consecutive non-blank lines.
func indentUnit(lines []string) string {
	tabs, spaces := 0, 0
	steps := map[int]int{}
	prev := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := leadingSpace(l)
		switch {
		case strings.HasPrefix(ws, "\t"):
			tabs++
		case ws != "":
			spaces++
		}
		if !strings.Contains(ws, "\t") {
			if prev >= 0 && len(ws) != prev {
				steps[abs(len(ws)-prev)]++
			}
			prev = len(ws)
		}
	}
	if tabs > spaces {
		return "\t"
	}
	best, count := 0, 0
	for step, n := range steps {
		if n > count || n == count && step < best {
			best, count = step, n
		}
	}
	return strings.Repeat(" ", best)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// reindent gives new the file's indentation, learnt from the pairs of old
// lines and the file lines they matched: an indentation old used maps to
// the one the file has there; any other is converted level by level
// relative to the first line, from old's unit (tab or spaces) to the
// file's. Whitespace-only lines become empty.
func reindent(oldLines, fileWindow []string, new string, fileUnitOf func() string) string {
	mapping := map[string]string{}
	var baseOld, baseFile string
	haveBase := false
	for i, l := range oldLines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		o, f := leadingSpace(l), leadingSpace(fileWindow[i])
		if _, seen := mapping[o]; !seen {
			mapping[o] = f
		}
		if !haveBase {
			baseOld, baseFile, haveBase = o, f, true
		}
	}
	newLines := strings.Split(new, "\n")
	var oldUnit, fileUnit string
	known := false
	units := func() {
		if known {
			return
		}
		known = true
		fileUnit = fileUnitOf()
		oldUnit = indentUnit(append(append([]string{}, oldLines...), newLines...))
		switch {
		case oldUnit == "":
			oldUnit = fileUnit
		case fileUnit == "":
			fileUnit = oldUnit
		}
	}
	for k, l := range newLines {
		if strings.TrimSpace(l) == "" {
			newLines[k] = ""
			continue
		}
		ws := leadingSpace(l)
		f, ok := mapping[ws]
		if !ok {
			units()
			f = convertIndent(ws, baseOld, baseFile, oldUnit, fileUnit)
		}
		newLines[k] = f + l[len(ws):]
	}
	return strings.Join(newLines, "\n")
}

// convertIndent is the file's indentation for a new line indented ws,
// where old's base indentation baseOld sits at the file's baseFile.
func convertIndent(ws, baseOld, baseFile, oldUnit, fileUnit string) string {
	if oldUnit == fileUnit && strings.HasPrefix(ws, baseOld) {
		return baseFile + ws[len(baseOld):]
	}
	// A tab counts as one level of the spaces on the other side.
	tabWidth := 4
	if !strings.Contains(oldUnit, "\t") && oldUnit != "" {
		tabWidth = len(oldUnit)
	} else if !strings.Contains(fileUnit, "\t") && fileUnit != "" {
		tabWidth = len(fileUnit)
	}
	width := func(s string) int { return len(s) + strings.Count(s, "\t")*(tabWidth-1) }
	unitWidth := func(u string) int { return max(1, width(u)) }
	delta := width(ws) - width(baseOld)
	levels, rest := delta/unitWidth(oldUnit), delta%unitWidth(oldUnit)
	target := max(0, width(baseFile)+levels*unitWidth(fileUnit)+rest)
	if fileUnit == "\t" {
		return strings.Repeat("\t", target/tabWidth) + strings.Repeat(" ", target%tabWidth)
	}
	return strings.Repeat(" ", target)
}

// lineOf is the 1-based line number of offset in text.
func lineOf(text string, offset int) int {
	return strings.Count(text[:offset], "\n") + 1
}

// occurrenceLines lists where each occurrence starts, for a message.
func occurrenceLines(text string, loc located) string {
	var b strings.Builder
	for i, s := range loc.splices {
		if i == 8 {
			fmt.Fprintf(&b, " and %d more", len(loc.splices)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", lineOf(text, s.start))
	}
	return b.String()
}
