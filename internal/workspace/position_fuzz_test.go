package workspace

import (
	"testing"
	"unicode/utf8"
)

// FuzzPositions: whatever the text and the position, in every encoding,
// a position resolves inside the text, on a character boundary and never
// between \r and \n, the same through the line index as through
// OffsetAt; an offset's position resolves back to it (to the start of
// its character); and a change of any range replaces exactly the text
// between its resolved ends, or is refused when they are reversed.
//
//	go test -run '^$' -fuzz FuzzPositions ./internal/workspace/
func FuzzPositions(f *testing.F) {
	for _, text := range []string{"", "abc\ndef\n", "a\r\nb\r\n", "\r\r\n\n", "😀x\n世界é\n", "\xff\xfe\n\xc3", "no newline"} {
		for _, p := range [][2]int16{{0, 0}, {0, 1}, {1, 2}, {0, 100}, {5, 0}, {-1, 3}, {1, -1}} {
			f.Add(text, p[0], p[1], p[1]+1, uint16(len(text)/2), uint8(0), "new\r\n")
		}
	}
	f.Fuzz(func(t *testing.T, text string, line, char, endChar int16, offset uint16, e uint8, newText string) {
		enc := Encoding(e % 3)
		p := Position{Line: int(line), Character: int(char)}
		off := OffsetAt(text, p, enc)
		checkBoundary(t, text, off, "OffsetAt", p, enc)
		idxOff, exact := newLineIndex(text).offset(text, p, enc)
		if idxOff != off {
			t.Fatalf("text %q, %v (enc %d): OffsetAt %d, line index %d", text, p, enc, off, idxOff)
		}
		back := PositionAt(text, off, enc)
		if exact && utf8.ValidString(text) && back != p {
			t.Fatalf("text %q (enc %d): %v is offset %d, which is %v", text, enc, p, off, back)
		}
		if again := OffsetAt(text, back, enc); again != off {
			t.Fatalf("text %q (enc %d): %v is %d, its position %v is %d", text, enc, p, off, back, again)
		}

		o := int(offset) % (len(text) + 1)
		q := PositionAt(text, o, enc)
		start := OffsetAt(text, q, enc)
		checkBoundary(t, text, start, "PositionAt", q, enc)
		if start > o || PositionAt(text, start, enc) != q {
			t.Fatalf("text %q (enc %d): offset %d is %v, which is offset %d", text, enc, o, q, start)
		}

		r := Range{Start: p, End: Position{Line: int(line) + int(endChar)%3, Character: int(endChar)}}
		from, to := OffsetAt(text, r.Start, enc), OffsetAt(text, r.End, enc)
		got, err := applyChanges(text, []ContentChange{{Range: &r, Text: newText}}, enc)
		switch {
		case from > to && err == nil:
			t.Fatalf("text %q (enc %d): the reversed range %v (%d-%d) was applied", text, enc, r, from, to)
		case from <= to && err != nil:
			t.Fatalf("text %q (enc %d): range %v: %v", text, enc, r, err)
		case err == nil && got != text[:from]+newText+text[to:]:
			t.Fatalf("text %q (enc %d): range %v (%d-%d) with %q gave %q", text, enc, r, from, to, newText, got)
		}
	})
}

// checkBoundary: off is in text, not between \r and \n, and, in valid
// UTF-8, at the start of a character.
func checkBoundary(t *testing.T, text string, off int, what string, p Position, enc Encoding) {
	t.Helper()
	if off < 0 || off > len(text) {
		t.Fatalf("%s(%q, %v, enc %d) = %d, outside the text", what, text, p, enc, off)
	}
	if off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
		t.Fatalf("%s(%q, %v, enc %d) = %d, between \\r and \\n", what, text, p, enc, off)
	}
	if utf8.ValidString(text) && off < len(text) && !utf8.RuneStart(text[off]) {
		t.Fatalf("%s(%q, %v, enc %d) = %d, inside a character", what, text, p, enc, off)
	}
}

// A stray continuation byte (a file in another encoding) is a character
// of its own both ways, as DecodeRune reads it: offset 2 is position 2,
// not 1 (which made OffsetAt and PositionAt disagree), while an offset
// inside a real character still moves back to its start.
func TestPositionsOfInvalidUTF8(t *testing.T) {
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		text := "a\x80b\n"
		if got := PositionAt(text, 1, enc); got != (Position{0, 1}) {
			t.Errorf("enc %d: offset 1 is %v, want 0:1", enc, got)
		}
		if got := PositionAt(text, 2, enc); got != (Position{0, 2}) {
			t.Errorf("enc %d: offset 2 is %v, want 0:2", enc, got)
		}
		if got := OffsetAt(text, Position{0, 2}, enc); got != 2 {
			t.Errorf("enc %d: 0:2 is offset %d, want 2", enc, got)
		}
		if got := PositionAt("é\x80", 1, enc); got != (Position{0, 0}) {
			t.Errorf("enc %d: offset 1, inside é, is %v, want 0:0", enc, got)
		}
	}
}
