package workspace

import (
	"strings"
	"unicode/utf8"
)

// Lines end at \n; a \r right before it belongs to the line break, so a
// position never points between \r and \n. A lone \r is an ordinary
// character.

// OffsetAt converts p to a byte offset in text under enc. Characters past
// the end of a line clamp to the line end; lines past the end clamp to len(text).
func OffsetAt(text string, p Position, enc Encoding) int {
	if p.Line < 0 {
		return 0
	}
	start := 0
	for range p.Line {
		nl := strings.IndexByte(text[start:], '\n')
		if nl < 0 {
			return len(text)
		}
		start += nl + 1
	}
	off, _ := offsetInLine(text, start, lineEnd(text, start), p.Character, enc)
	return off
}

// PositionAt converts a byte offset to a Position under enc. Offsets out of
// range clamp to the text; an offset inside a character or inside \r\n
// moves back to its start.
func PositionAt(text string, offset int, enc Encoding) Position {
	c := positionCursor{text: text, enc: enc}
	return c.at(offset)
}

// lineEnd returns the offset where the line starting at start ends,
// excluding its line break.
func lineEnd(text string, start int) int {
	nl := strings.IndexByte(text[start:], '\n')
	if nl < 0 {
		return len(text)
	}
	end := start + nl
	if end > start && text[end-1] == '\r' {
		end--
	}
	return end
}

// offsetInLine walks char units of enc from start, stopping at end. exact
// reports whether the position named an existing boundary, rather than
// being clamped to the line end or rounded back out of a character.
func offsetInLine(text string, start, end, char int, enc Encoding) (offset int, exact bool) {
	if char <= 0 {
		return start, char == 0
	}
	if enc == UTF8 {
		off := start + char
		if off > end {
			return end, false
		}
		if cs := charStart(text, start, off); cs != off {
			return cs, false
		}
		return off, true
	}
	units, i := 0, start
	for i < end && units < char {
		if b := text[i]; b < utf8.RuneSelf {
			i++
			units++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		w := 1
		if enc == UTF16 && r >= 0x10000 {
			w = 2
		}
		if units+w > char {
			break // inside a surrogate pair: stay before the character
		}
		units += w
		i += size
	}
	return i, units == char
}

// charStart is the start of the character off lies in, no earlier than
// lo: off itself at a boundary. Characters are what DecodeRuneInString
// reads, so a byte of invalid UTF-8 (a stray continuation byte too) is
// one, as every other walk here counts it.
func charStart(text string, lo, off int) int {
	if off >= len(text) || utf8.RuneStart(text[off]) {
		return off
	}
	s := off
	for s > lo && off-s < utf8.UTFMax-1 && !utf8.RuneStart(text[s]) {
		s--
	}
	if _, size := utf8.DecodeRuneInString(text[s:]); s+size > off {
		return s
	}
	return off
}

// unitLen is the length of s in units of enc.
func unitLen(s string, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// positionCursor converts non-decreasing byte offsets to positions in one
// forward pass over the text.
type positionCursor struct {
	text      string
	enc       Encoding
	pos       int // offset scanned up to
	line      int // line of pos
	lineStart int // offset of that line's start
}

func (c *positionCursor) at(offset int) Position {
	offset = min(max(offset, 0), len(c.text))
	if offset < c.pos { // callers go forward; restart rather than be wrong
		c.pos, c.line, c.lineStart = 0, 0, 0
	}
	seg := c.text[c.pos:offset]
	if n := strings.Count(seg, "\n"); n > 0 {
		c.line += n
		c.lineStart = c.pos + strings.LastIndexByte(seg, '\n') + 1
	}
	c.pos = offset
	offset = charStart(c.text, c.lineStart, offset)
	if offset > c.lineStart && offset < len(c.text) && c.text[offset] == '\n' && c.text[offset-1] == '\r' {
		offset--
	}
	return Position{Line: c.line, Character: unitLen(c.text[c.lineStart:offset], c.enc)}
}

// lineIndex holds the start offset of every line, so positions resolve
// without rescanning the text.
type lineIndex []int

func newLineIndex(text string) lineIndex {
	idx := make(lineIndex, 1, strings.Count(text, "\n")+1)
	for i := 0; ; {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return idx
		}
		i += nl + 1
		idx = append(idx, i)
	}
}

// offset resolves p like OffsetAt; exact is false when p was clamped.
func (idx lineIndex) offset(text string, p Position, enc Encoding) (offset int, exact bool) {
	if p.Line < 0 {
		return 0, false
	}
	if p.Line >= len(idx) {
		return len(text), false
	}
	start := idx[p.Line]
	end := len(text)
	if p.Line+1 < len(idx) {
		end = idx[p.Line+1] - 1
		if end > start && text[end-1] == '\r' {
			end--
		}
	}
	return offsetInLine(text, start, end, p.Character, enc)
}
