package completion

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// block is one change of a next edit answer: the text as it is, and as
// it becomes.
type block struct {
	search, replace string
}

// parseBlocks takes the blocks out of the model's answer; a block cut
// short (the answer ran out of budget) is left out.
func parseBlocks(raw string) []block {
	s := unfence(strings.ReplaceAll(raw, "\r\n", "\n"))
	s = strings.ReplaceAll(s, userCursor, "")
	var out []block
	for {
		_, rest, ok := strings.Cut(s, searchMarker)
		if !ok {
			return out
		}
		search, rest, ok := strings.Cut(rest, replaceMarker)
		if !ok {
			return out
		}
		replace, rest, ok := strings.Cut(rest, endMarker)
		if !ok {
			return out
		}
		out = append(out, block{search: markerLines(search), replace: markerLines(replace)})
		s = rest
	}
}

// markerLines is the text between two markers that stand on lines of
// their own: without the line breaks after the first and before the
// second.
func markerLines(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(s, "\n"), "\n")
}

// change is a block placed in a document: at byte offset offset, which
// starts a line, the whole lines old become new.
type change struct {
	offset   int
	old, new string
}

// end is where c's old text ends in the document.
func (c change) end() int { return c.offset + len(c.old) }

// locate places blocks in text, the cursor at byte offset at: each at the
// occurrence of its search text nearest the cursor, whole lines
// preferred, widened to whole lines. A block not found, one that changes
// nothing and one overlapping a block placed before it are left out. The
// changes come in the document's order.
func locate(text string, blocks []block, at int) []change {
	crlf := strings.Contains(text, "\r\n")
	var out []change
	for _, b := range blocks {
		if crlf {
			b.search, b.replace = strings.ReplaceAll(b.search, "\n", "\r\n"), strings.ReplaceAll(b.replace, "\n", "\r\n")
		}
		if strings.TrimSpace(b.search) == "" || b.search == b.replace {
			continue
		}
		off, ok := find(text, b.search, at)
		if !ok {
			continue
		}
		start := strings.LastIndexByte(text[:off], '\n') + 1
		after := off + len(b.search)
		end := after + strings.IndexByte(text[after:], '\n')
		if end < after {
			end = len(text)
		}
		c := change{offset: start, old: text[start:end], new: text[start:off] + b.replace + text[after:end]}
		if !slices.ContainsFunc(out, func(o change) bool { return c.offset <= o.end() && o.offset <= c.end() }) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b change) int { return a.offset - b.offset })
	return out
}

// find is the offset of the occurrence of search in text nearest byte
// offset at, among those that are whole lines if any is.
func find(text, search string, at int) (int, bool) {
	best, bestWhole, found := 0, false, false
	distance := func(o int) int {
		switch {
		case at < o:
			return o - at
		case at > o+len(search):
			return at - o - len(search)
		}
		return 0
	}
	for i := 0; ; {
		j := strings.Index(text[i:], search)
		if j < 0 {
			return best, found
		}
		o := i + j
		end := o + len(search)
		whole := (o == 0 || text[o-1] == '\n') && (end == len(text) || text[end] == '\n' || text[end] == '\r')
		if !found || whole && !bestWhole || whole == bestWhole && distance(o) < distance(best) {
			best, bestWhole, found = o, whole, true
		}
		i = o + 1
	}
}

// words are the runs of letters, digits and underscores in s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// firstRune and lastRune are s's first and last characters, RuneError
// for none.
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
