package tools

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// How replace finds where old_string belongs. Models get old_string wrong
// in a few recurring ways (line endings, one level of JSON escaping too
// many, indentation, whitespace, a character or two); each matchStage
// undoes one of them. The stages run in order and the first one that
// finds old_string at all decides: it applies when it found exactly the
// expected number of occurrences and fails otherwise, so a looser stage
// never picks one of several places a stricter stage found. Every stage
// but the fuzzy one replaces only text that is old_string read its way;
// the fuzzy one, Gemini CLI's last, takes lines that differ from it a
// little, and the model is told so.

type matchStage int

const (
	stageExact matchStage = iota
	stageLineEndings
	stageUnescape
	stageIndentation
	stageWhitespace
	stageFuzzy
	stageLLM
)

// String names the stage in the benchmark table and test failures.
func (s matchStage) String() string {
	return [...]string{"exact", "line endings", "unescape", "indentation", "whitespace", "fuzzy", "LLM fix"}[s]
}

// what is how a stage's matching is described to the model.
func (s matchStage) what() string {
	switch s {
	case stageLineEndings:
		return "converting its line endings to the file's"
	case stageUnescape:
		return "unescaping old_string and new_string"
	case stageIndentation:
		return "comparing line by line, ignoring leading and trailing whitespace" + reindented
	case stageWhitespace:
		return "comparing line by line, ignoring whitespace differences within lines" + reindented
	case stageFuzzy:
		return "a fuzzy comparison, taking whole lines that differ from it in at most a tenth of its length (whitespace differences counting a tenth), as Gemini CLI does" + reindented
	case stageLLM:
		return "an LLM correction of old_string and new_string"
	}
	return "exact match"
}

// reindented says what the line-by-line stages do to new_string (see
// reindent).
const reindented = " (new_string was re-indented to the matched block: on every line, the indentation of its first line with text became that of the block's first line with text, " +
	"deeper lines keeping their extra indentation (converted to the file's where old_string's own lines show the file indents them differently), " +
	"and lines indented less than its first line were put at the block's first line's indentation)"

// splice is one replacement: text[start:end] becomes with.
type splice struct {
	start, end int
	with       string
}

// located is what the first stage that found old_string found.
type located struct {
	stage matchStage
	// unescaped is how old_string and new_string were unescaped before
	// matching: always for stageUnescape, maybe for the line-by-line
	// stages, never for the others.
	unescaped unescaping
	splices   []splice // ascending, one per occurrence
	// unreindentable is why new_string could not be given the file's
	// indentation at an occurrence a line-by-line stage found: the edit
	// is refused rather than landed mis-indented.
	unreindentable error
}

// silent reports whether the model is told nothing about the stage: an
// exact match, or one that only differs in line endings (the model reads
// every file with LF, so an LF old_string is what it was shown).
func (l located) silent() bool {
	return l.stage == stageExact || l.stage == stageLineEndings
}

// note is how a successful match in text is described to the model;
// empty when silent. A fuzzy match says which lines it replaced: they
// were not old_string.
func (l located) note(text string) string {
	if l.silent() {
		return ""
	}
	note := "old_string matched after " + l.how() + "."
	if l.stage == stageFuzzy {
		note += " The lines replaced, which differ from old_string: " + l.lineRanges(text) + "."
	}
	return note
}

// lineRanges lists the lines each splice replaced in text ("3-5, 9").
func (l located) lineRanges(text string) string {
	ranges := make([]string, len(l.splices))
	for i, s := range l.splices {
		first, last := lineOf(text, s.start), lineOf(text, max(s.start, s.end-1))
		ranges[i] = fmt.Sprint(first)
		if last > first {
			ranges[i] += fmt.Sprintf("-%d", last)
		}
	}
	return strings.Join(ranges, ", ")
}

// how describes the stage's matching, with the unescaping it used.
func (l located) how() string {
	switch {
	case l.unescaped == unescapeNone:
		return l.stage.what()
	case l.stage == stageUnescape:
		return l.unescaped.what()
	}
	return l.unescaped.what() + ", then " + l.stage.what()
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
var deterministicStages = []matchStage{stageExact, stageLineEndings, stageUnescape, stageIndentation, stageWhitespace, stageFuzzy}

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
	readings := readingsOf(oldLF, newLF)
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
			loc = firstFound(stage, readings[1:], func(old, new string) []splice { return lfv().find(old, new) })
		case stageIndentation, stageWhitespace:
			norm := strings.TrimSpace
			if stage == stageWhitespace {
				norm = squeezeSpace
			}
			var unreindentable error
			loc = firstFound(stage, readings, func(old, new string) []splice {
				splices, err := byLine().match(old, new, norm)
				unreindentable = err
				return splices
			})
			loc.unreindentable = unreindentable
		case stageFuzzy:
			splices, err := byLine().fuzzy(old, oldLF, newLF)
			loc = located{stage: stage, splices: splices, unreindentable: err}
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

// unescaping is a way of reading an over-escaped old_string and
// new_string back.
type unescaping int

const (
	unescapeNone unescaping = iota
	// unescapeRuns is Gemini CLI's reading (unescapeStringForGeminiBug):
	// a run of backslashes before n, t, r, a quote, a backtick, a
	// backslash or a line break is one escape, so \\n is a line break.
	unescapeRuns
	// unescapeOneLevel undoes exactly one level, for a model that escaped
	// a backslash of the code along with everything else: \\n is the
	// code's \n. Tried after unescapeRuns, which reads that as a line
	// break.
	unescapeOneLevel
)

// what is how the unescaping is described to the model.
func (u unescaping) what() string {
	switch u {
	case unescapeRuns:
		return stageUnescape.what() + " (each run of backslashes before n, t, r, a quote, a backtick, a backslash or a line break read as one escape)"
	case unescapeOneLevel:
		return stageUnescape.what() + " (one level of escaping undone)"
	}
	return ""
}

// read is s (LF) read back this way, line endings made LF again.
func (u unescaping) read(s string) string {
	switch u {
	case unescapeRuns:
		return toLF(unescapeRunsOfBackslashes(s))
	case unescapeOneLevel:
		return toLF(unescapeOnce(s))
	}
	return s
}

// reading is old_string and new_string (LF) read one way.
type reading struct {
	how      unescaping
	old, new string
}

// readingsOf lists the distinct readings of old (LF), with new read the
// same way, in the order they are tried: as written first, then each
// unescaping that changes old.
func readingsOf(old, new string) []reading {
	readings := []reading{{how: unescapeNone, old: old, new: new}}
	for _, u := range []unescaping{unescapeRuns, unescapeOneLevel} {
		o := u.read(old)
		if o == old || o == readings[len(readings)-1].old {
			continue
		}
		readings = append(readings, reading{how: u, old: o, new: u.read(new)})
	}
	return readings
}

// firstFound is what find finds for the first of readings it finds
// anything for.
func firstFound(stage matchStage, readings []reading, find func(old, new string) []splice) located {
	for _, r := range readings {
		if splices := find(r.old, r.new); len(splices) > 0 {
			return located{stage: stage, unescaped: r.how, splices: splices}
		}
	}
	return located{stage: stage}
}

// unescapeRunsOfBackslashes is Gemini CLI's unescapeStringForGeminiBug:
// one or more backslashes followed by n, t, r, ', ", `, \ or a line
// break become what that character stands for (\n a line break, \t a tab,
// \r a carriage return, a line break itself); any other backslash is kept.
// Like the reference's greedy regexp, a run of backslashes before any
// other character is one backslash.
func unescapeRunsOfBackslashes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		run := i
		for run < len(s) && s[run] == '\\' {
			run++
		}
		if run < len(s) {
			if c, ok := escaped(s[run]); ok {
				b.WriteByte(c)
				i = run + 1
				continue
			}
		}
		// The run's last backslash is not an escape: the ones before it
		// escape it (one backslash), or it stands alone.
		b.WriteByte('\\')
		i = run
	}
	return b.String()
}

// escaped is what c stands for after a backslash, for the characters
// models over-escape.
func escaped(c byte) (byte, bool) {
	switch c {
	case 'n', '\n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case '"', '\'', '`', '\\':
		return c, true
	}
	return 0, false
}

// unescapeOnce undoes one level of string escaping: \n \t \r \" \' \`
// \\ become what they stand for, and any other backslash is kept.
func unescapeOnce(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) || s[i+1] == '\n' {
			b.WriteByte(c)
			continue
		}
		e, ok := escaped(s[i+1])
		if !ok {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(e)
		i++
	}
	return b.String()
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
// returns a splice per run with new re-indented to the run (reindent),
// and the first run's error when new could not be re-indented to one (its
// splice then replaces nothing). A trailing line break in old covers the
// last line's; old must have some text.
func (fl fileLines) match(old, new string, norm func(string) string) ([]splice, error) {
	newLines := strings.Split(new, "\n")
	withBreak := strings.HasSuffix(old, "\n")
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	want := make([]string, len(oldLines))
	blank := true
	for i, l := range oldLines {
		want[i] = norm(l)
		blank = blank && want[i] == ""
	}
	if blank {
		return nil, nil
	}
	var out []splice
	var unreindentable error
	normed := make([]string, len(fl.starts))
	done := make([]bool, len(fl.starts))
	normLine := func(i int) string {
		if !done[i] {
			normed[i], done[i] = norm(fl.line(i)), true
		}
		return normed[i]
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
		block := make([]string, len(want))
		for k := range block {
			block[k] = fl.line(i + k)
		}
		with, err := reindent(newLines, oldLines, block)
		if err != nil {
			unreindentable = cmp.Or(unreindentable, fmt.Errorf("at line %d: %w", i+1, err))
			with = fl.text[s.start:s.end]
		}
		s.with = withEOL(fl.text[s.start:s.end], with)
		out = append(out, s)
	}
	return out, unreindentable
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// reindent gives newLines (new_string's) the indentation of block, the
// file lines oldLines (old_string's) matched, the way Gemini CLI's
// applyIndentation (edit.ts) does: the indentation of new_string's first
// line is the reference, and on every line starting with it, it becomes
// the indentation of the block's first line, so deeper lines keep their
// extra indentation; a line indented less gets the block's first line's
// indentation alone; a whitespace-only line becomes empty.
//
// Two refinements, so that every line gets the file's indentation.
// The reference lines are the first that are not blank: a blank line
// has no indentation to go by, and an old_string that starts with the
// blank line before a block (new_string alike) would otherwise lose the
// block's indentation on every line. And where old_string indents its
// lines relative to its first line unlike the file (tabs against spaces,
// two spaces against four), a new line's extra indentation is converted
// to the file's: as the line of old_string with the same extra
// indentation shows, else step by step, as old_string's lines show one
// step of each; Gemini CLI's rule would keep old_string's indentation in
// a file indented otherwise. When old_string's lines show no step that
// converts a new line's extra indentation, the edit is refused (the
// error says which line): it would land mis-indented.
//
// An old_string copied from the file starting at its first line's text
// (startsAfterIndentation) is indented as the file is, and new_string is
// read relative to its first line, as Gemini CLI reads it, unless the
// lines it shares with old_string are indented as there: then it was
// copied the same way, and its lines keep their own indentation.
func reindent(newLines, oldLines, block []string) (string, error) {
	first := firstNonBlank(oldLines) // old_string has text (match)
	old, blk := oldLines[first:], block[first:]
	target := leadingSpace(blk[0])
	ref := ""
	if i := firstNonBlank(newLines); i >= 0 {
		ref = leadingSpace(newLines[i])
	}
	indent := indentation{asWritten: true}
	switch {
	case !startsAfterIndentation(old, blk):
		indent = learnIndentation(old, blk)
	case ref == "" && indentsSharedLinesAsIn(newLines, old):
		ref = target
	}
	out := make([]string, len(newLines))
	for i, l := range newLines {
		switch {
		case strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, ref):
			ws := leadingSpace(l)
			extra, ok := indent.convert(ws[len(ref):])
			if !ok {
				return "", fmt.Errorf("new_string's line %d (%q) is indented %q beyond its first line, and old_string's lines, indented unlike the file's, do not show how the file indents that", i+1, strings.TrimSpace(l), ws[len(ref):])
			}
			out[i] = target + extra + l[len(ws):]
		default:
			out[i] = target + strings.TrimLeftFunc(l, unicode.IsSpace)
		}
	}
	return strings.Join(out, "\n"), nil
}

// firstNonBlank is the index of the first of lines with text, -1 when
// none has.
func firstNonBlank(lines []string) int {
	return slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) != "" })
}

// indentation is how the file indents what old_string indents, beyond
// the first line of each, as old_string's lines and the block they
// matched show it.
type indentation struct {
	// relative maps each extra indentation old_string's lines have to
	// the block's matching lines' (the first such pair wins).
	relative map[string]string
	// asWritten: every pair maps an indentation to itself, so old_string
	// is indented as the file is.
	asWritten bool
	// oldStep and fileStep are one step of indentation in old_string and
	// in the file ("    " and "\t", say), when the pairs show them; ""
	// when they show none, or disagree.
	oldStep, fileStep string
}

// learnIndentation reads how the file indents old_string's lines from
// the block they matched; both start with a line that is not blank.
func learnIndentation(oldLines, block []string) indentation {
	oldRef, blockRef := leadingSpace(oldLines[0]), leadingSpace(block[0])
	in := indentation{relative: map[string]string{}, asWritten: true}
	for k, l := range oldLines {
		ws, fws := leadingSpace(l), leadingSpace(block[k])
		if strings.TrimSpace(l) == "" || !strings.HasPrefix(ws, oldRef) || !strings.HasPrefix(fws, blockRef) {
			continue
		}
		extra, fileExtra := ws[len(oldRef):], fws[len(blockRef):]
		if _, seen := in.relative[extra]; !seen {
			in.relative[extra] = fileExtra
			in.asWritten = in.asWritten && extra == fileExtra
		}
	}
	in.oldStep, in.fileStep = indentSteps(in.relative)
	return in
}

// startsAfterIndentation reports whether old_string was copied from the
// file starting at its first line's text: that line has no indentation
// where the block's has, and every other line with text is indented
// exactly as the file's. Its lines are then indented as the file's; read
// relative to the unindented first line, they would seem to indent
// everything a block's indentation deeper than the file does.
func startsAfterIndentation(oldLines, block []string) bool {
	if leadingSpace(oldLines[0]) != "" || leadingSpace(block[0]) == "" {
		return false
	}
	compared := false
	for k, l := range oldLines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if leadingSpace(l) != leadingSpace(block[k+1]) {
			return false
		}
		compared = true
	}
	return compared
}

// indentsSharedLinesAsIn reports whether the lines of newLines with the
// text of one of old's lines after its first are indented as one of
// those, at least one of them.
func indentsSharedLinesAsIn(newLines, old []string) bool {
	indents := map[string][]string{} // text → its indentations in old
	for _, l := range old[1:] {
		if text := strings.TrimSpace(l); text != "" {
			indents[text] = append(indents[text], leadingSpace(l))
		}
	}
	shared := false
	for _, l := range newLines {
		ws, ok := indents[strings.TrimSpace(l)]
		if !ok {
			continue
		}
		if !slices.Contains(ws, leadingSpace(l)) {
			return false
		}
		shared = true
	}
	return shared
}

// convert is extra, a new line's indentation beyond new_string's first
// line's, as the file indents it; false when that cannot be told.
func (in indentation) convert(extra string) (string, bool) {
	if fileExtra, ok := in.relative[extra]; ok {
		return fileExtra, true
	}
	if in.asWritten {
		return extra, true
	}
	if n, ok := repeats(extra, in.oldStep); ok {
		return strings.Repeat(in.fileStep, n), true
	}
	return "", false
}

// indentSteps finds one step of indentation in old_string and in the
// file from relative's pairs: each pair's indentations must be runs of
// one character (the same in every pair on each side), and a pair n
// steps deep in old_string must be n steps deep in the file. The old
// step is the greatest that divides every pair's; "" when there is none.
func indentSteps(relative map[string]string) (oldStep, fileStep string) {
	var oldChar, fileChar byte
	step := 0
	for extra, fileExtra := range relative {
		if extra == "" {
			continue
		}
		if !uniform(extra) || !uniform(fileExtra) || fileExtra == "" ||
			oldChar != 0 && (extra[0] != oldChar || fileExtra[0] != fileChar) {
			return "", ""
		}
		oldChar, fileChar = extra[0], fileExtra[0]
		step = gcd(step, len(extra))
	}
	if step == 0 {
		return "", ""
	}
	perStep := 0
	for extra, fileExtra := range relative {
		if extra == "" {
			continue
		}
		n := len(extra) / step
		if len(fileExtra)%n != 0 || perStep != 0 && len(fileExtra)/n != perStep {
			return "", ""
		}
		perStep = len(fileExtra) / n
	}
	return strings.Repeat(string(oldChar), step), strings.Repeat(string(fileChar), perStep)
}

// uniform reports whether s is a run of one character.
func uniform(s string) bool {
	return s != "" && strings.Count(s, s[:1]) == len(s)
}

// repeats reports whether s is step repeated, and how many times.
func repeats(s, step string) (int, bool) {
	if step == "" || len(s)%len(step) != 0 || strings.Repeat(step, len(s)/len(step)) != s {
		return 0, false
	}
	return len(s) / len(step), true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
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
