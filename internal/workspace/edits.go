package workspace

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// ComputeEdits returns minimal non-overlapping edits turning before into
// after: a line-level diff (fast on large files), each hunk then narrowed
// to the characters that differ, never splitting a character or a \r\n.
func ComputeEdits(before, after string, enc Encoding) []TextEdit {
	return DiffLines(before, after).Edits(enc)
}

// LineDiff is the line-level difference of two texts, computed once for
// both the edits that carry it and its count of lines.
type LineDiff struct {
	before string
	hunks  []byteEdit
}

// DiffLines diffs before and after by lines.
func DiffLines(before, after string) LineDiff {
	if before == after {
		return LineDiff{before: before}
	}
	return LineDiff{before: before, hunks: lineDiff(before, after)}
}

// Edits are the minimal edits of ComputeEdits, positions in enc.
func (d LineDiff) Edits(enc Encoding) []TextEdit {
	if len(d.hunks) == 0 {
		return nil
	}
	edits := make([]TextEdit, len(d.hunks))
	c := positionCursor{text: d.before, enc: enc}
	for i, h := range d.hunks {
		h = narrow(d.before, h)
		start := c.at(h.start)
		end := c.at(h.end)
		edits[i] = TextEdit{Range: Range{Start: start, End: end}, NewText: h.text}
	}
	return edits
}

// Stat counts added and removed lines.
func (d LineDiff) Stat() (added, removed int) {
	for _, h := range d.hunks {
		removed += countLines(d.before[h.start:h.end])
		added += countLines(h.text)
	}
	return added, removed
}

// Changes is how many separate changes (line hunks) the diff makes.
func (d LineDiff) Changes() int { return len(d.hunks) }

// ChangeLine is the 1-based line of before where change i starts.
func (d LineDiff) ChangeLine(i int) int {
	return strings.Count(d.before[:d.hunks[i].start], "\n") + 1
}

// Take is before with the changes take says yes to made, the others left
// out: a review that took some of an edit's changes and dropped the rest.
func (d LineDiff) Take(take func(i int) bool) string {
	var b strings.Builder
	at := 0
	for i, h := range d.hunks {
		if take(i) {
			b.WriteString(d.before[at:h.start])
			b.WriteString(h.text)
			at = h.end
		}
	}
	b.WriteString(d.before[at:])
	return b.String()
}

// Taken reports what final holds of a proposal: total is how many
// separate changes (line hunks) turn before into proposal, and taken how
// many of them final has. part is true when final is before with some of
// those changes made exactly as proposed and nothing else, as a review
// that took some changes and dropped the others leaves it; when final
// differs otherwise (the user wrote lines of their own), part is false
// and taken counts nothing.
func Taken(before, proposal, final string) (taken, total int, part bool) {
	proposed := DiffLines(before, proposal).hunks
	made := DiffLines(before, final).hunks
	for _, h := range made {
		if !slices.Contains(proposed, h) {
			return 0, len(proposed), false
		}
	}
	return len(made), len(proposed), true
}

// lineDiff is udiff.Lines without its per-rune line splitting and string
// joins, which dominate on large files: replacements are slices of after.
func lineDiff(before, after string) []byteEdit {
	beforeLines, beforeStarts := splitLines(before)
	afterLines, afterStarts := splitLines(after)
	diffs := lcs.DiffLines(beforeLines, afterLines)
	edits := make([]byteEdit, len(diffs))
	for i, d := range diffs {
		edits[i] = byteEdit{
			start: beforeStarts[d.Start],
			end:   beforeStarts[d.End],
			text:  after[afterStarts[d.ReplStart]:afterStarts[d.ReplEnd]],
		}
	}
	return edits
}

// splitLines returns text's lines, each with its \n, and their start
// offsets followed by len(text).
func splitLines(text string) (lines []string, starts []int) {
	n := strings.Count(text, "\n") + 1
	lines = make([]string, 0, n)
	starts = make([]int, 1, n+1)
	for start := 0; start < len(text); {
		end := len(text)
		if nl := strings.IndexByte(text[start:], '\n'); nl >= 0 {
			end = start + nl + 1
		}
		lines = append(lines, text[start:end])
		starts = append(starts, end)
		start = end
	}
	return lines, starts
}

// narrow trims the bytes a hunk's old and new text share at either end,
// backing off to character boundaries and never between \r and \n.
func narrow(before string, e byteEdit) byteEdit {
	old := before[e.start:e.end]
	p := 0
	for p < len(old) && p < len(e.text) && old[p] == e.text[p] {
		p++
	}
	for p > 0 && !boundary(old, p) {
		p--
	}
	q := 0
	for q < len(old)-p && q < len(e.text)-p && old[len(old)-1-q] == e.text[len(e.text)-1-q] {
		q++
	}
	for q > 0 && !boundary(old, len(old)-q) {
		q--
	}
	return byteEdit{start: e.start + p, end: e.end - q, text: e.text[p : len(e.text)-q]}
}

// boundary reports whether offset i of s starts a character and does not
// fall inside a \r\n.
func boundary(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	return utf8.RuneStart(s[i]) && !(s[i-1] == '\r' && s[i] == '\n')
}

// byteEdit is a TextEdit resolved to byte offsets.
type byteEdit struct {
	start, end int
	text       string
}

// ApplyEdits applies non-overlapping edits (any order) to text. Edits that
// start at the same place apply in the order given, insertions first.
func ApplyEdits(text string, edits []TextEdit, enc Encoding) (string, error) {
	if len(edits) == 0 {
		return text, nil
	}
	idx := newLineIndex(text)
	resolved := make([]byteEdit, len(edits))
	for i, e := range edits {
		start, _ := idx.offset(text, e.Range.Start, enc)
		end, _ := idx.offset(text, e.Range.End, enc)
		if start > end {
			return "", fmt.Errorf("edit %d: range %s ends before it starts", i, e.Range)
		}
		resolved[i] = byteEdit{start, end, e.NewText}
	}
	slices.SortStableFunc(resolved, func(a, b byteEdit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	for i := 1; i < len(resolved); i++ {
		if resolved[i].start < resolved[i-1].end {
			return "", fmt.Errorf("edits overlap at byte offsets %d-%d and %d-%d",
				resolved[i-1].start, resolved[i-1].end, resolved[i].start, resolved[i].end)
		}
	}
	return splice(text, resolved), nil
}

// splice applies sorted, non-overlapping byte edits in one pass.
func splice(text string, edits []byteEdit) string {
	size := len(text)
	for _, e := range edits {
		size += len(e.text) - (e.end - e.start)
	}
	var b strings.Builder
	b.Grow(size)
	last := 0
	for _, e := range edits {
		b.WriteString(text[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// applyChanges applies didChange content changes in order. Clients send
// a multi-edit change (a rename, an applied WorkspaceEdit) as ranges in
// descending document order, each one valid for the text the previous left;
// such runs are resolved against one line index and spliced in one pass
// instead of rebuilding the text per change, a change joining a run only
// where it resolves as it would in the text the run leaves, so that the
// batch always gives what the changes give one by one, on any bytes. In
// invalid UTF-8 each byte that is no character's is a character of its
// own, one UTF-16 code unit: the U+FFFD it decodes to, as Go's utf16 and
// VS Code's decoder count it.
func applyChanges(text string, changes []ContentChange, enc Encoding) (string, error) {
	for i := 0; i < len(changes); {
		if changes[i].Range == nil {
			text = changes[i].Text
			i++
			continue
		}
		idx := newLineIndex(text)
		var run []byteEdit // in arrival (descending) order
		for ; i < len(changes) && changes[i].Range != nil; i++ {
			r := *changes[i].Range
			start, startExact := idx.offset(text, r.Start, enc)
			end, endExact := idx.offset(text, r.End, enc)
			if n := len(run); n > 0 {
				limit := run[n-1].start
				if end > limit ||
					!idx.resolvesBefore(text, r.Start, start, startExact, limit) ||
					!idx.resolvesBefore(text, r.End, end, endExact, limit) {
					break // resolved again in the text the run leaves
				}
			}
			// Only now are the offsets those of the text the change is
			// for: one the run left might not reverse them.
			if start > end {
				return "", fmt.Errorf("change %d: range %s ends before it starts", i, r)
			}
			run = append(run, byteEdit{start, end, changes[i].Text})
		}
		slices.Reverse(run)
		text = splice(text, run)
	}
	return text, nil
}

// resolvesBefore reports whether position p, resolved to offset in text,
// resolves to the same offset in any text that keeps text[:limit] and
// differs after it. That holds when p names an exact boundary before limit
// (or at it, unless a \r there could pair with a \n coming after it), the
// characters read to find it whole before limit; or when p was clamped to
// a line whose line break lies wholly before limit.
func (idx lineIndex) resolvesBefore(text string, p Position, offset int, exact bool, limit int) bool {
	switch {
	case p.Line < 0:
		return true
	case exact:
		return (offset < limit || offset == limit && (offset == 0 || text[offset-1] != '\r')) &&
			charactersEndBefore(text, offset, limit)
	default:
		return p.Line+1 < len(idx) && idx[p.Line+1] <= limit
	}
}

// charactersEndBefore reports whether the characters a walk to offset
// decodes, and the one it checks offset is not inside, read the same
// whatever follows limit. A character is decoded from up to 4 bytes
// (utf8.UTFMax): one starting within 3 bytes of limit may read past it,
// and what follows there decides it when the bytes before limit begin a
// sequence they do not finish: "\xe4\xb8" is two characters of invalid
// UTF-8 before an "X", one (世) before a "\x96".
func charactersEndBefore(text string, offset, limit int) bool {
	for i := max(0, limit-(utf8.UTFMax-1)); i < offset && i < limit; i++ {
		if utf8.RuneStart(text[i]) && !utf8.FullRuneInString(text[i:limit]) {
			return false
		}
	}
	return true
}

func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Character) }

func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }
