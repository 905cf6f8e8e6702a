package workspace

import (
	"fmt"
	"testing"
)

func TestOffsetAtAndPositionAt(t *testing.T) {
	// "é" is 2 bytes, 1 UTF-16 unit; "世" 3 bytes, 1 unit; "😀" 4 bytes, 2 units, 1 code point.
	text := "aé世😀b\r\nxy\n\nlast"
	tests := []struct {
		pos    Position
		enc    Encoding
		offset int
	}{
		{Position{0, 0}, UTF16, 0},
		{Position{0, 1}, UTF16, 1},
		{Position{0, 2}, UTF16, 3},
		{Position{0, 3}, UTF16, 6},
		{Position{0, 5}, UTF16, 10}, // after the emoji's two units
		{Position{0, 4}, UTF16, 6},  // inside the surrogate pair: before the emoji
		{Position{0, 6}, UTF16, 11},
		{Position{0, 7}, UTF16, 11}, // past the line end: before \r
		{Position{0, 4}, UTF32, 10},
		{Position{0, 5}, UTF32, 11},
		{Position{0, 1}, UTF8, 1},
		{Position{0, 2}, UTF8, 1}, // inside "é": back to its start
		{Position{0, 3}, UTF8, 3},
		{Position{0, 10}, UTF8, 10},
		{Position{0, 11}, UTF8, 11},
		{Position{0, 12}, UTF8, 11}, // would be between \r and \n
		{Position{1, 0}, UTF16, 13},
		{Position{1, 2}, UTF16, 15},
		{Position{1, 9}, UTF16, 15},
		{Position{2, 0}, UTF16, 16},
		{Position{2, 5}, UTF16, 16},
		{Position{3, 4}, UTF16, 21},
		{Position{3, 9}, UTF32, 21},
		{Position{4, 0}, UTF16, 21}, // past the last line
		{Position{-1, 3}, UTF16, 0},
		{Position{1, -1}, UTF16, 13},
	}
	for _, tt := range tests {
		if got := OffsetAt(text, tt.pos, tt.enc); got != tt.offset {
			t.Errorf("OffsetAt(%v, enc %d) = %d, want %d", tt.pos, tt.enc, got, tt.offset)
		}
		idxGot, _ := newLineIndex(text).offset(text, tt.pos, tt.enc)
		if idxGot != tt.offset {
			t.Errorf("lineIndex.offset(%v, enc %d) = %d, want %d", tt.pos, tt.enc, idxGot, tt.offset)
		}
	}
}

func TestPositionAt(t *testing.T) {
	text := "aé世😀b\r\nxy\n\nlast"
	tests := []struct {
		offset int
		enc    Encoding
		pos    Position
	}{
		{0, UTF16, Position{0, 0}},
		{3, UTF16, Position{0, 2}},
		{6, UTF16, Position{0, 3}},
		{10, UTF16, Position{0, 5}},
		{10, UTF32, Position{0, 4}},
		{10, UTF8, Position{0, 10}},
		{8, UTF16, Position{0, 3}}, // inside the emoji: its start
		{2, UTF8, Position{0, 1}},  // inside "é"
		{11, UTF16, Position{0, 6}},
		{12, UTF16, Position{0, 6}}, // between \r and \n: before \r
		{13, UTF16, Position{1, 0}},
		{15, UTF16, Position{1, 2}},
		{16, UTF16, Position{2, 0}},
		{17, UTF16, Position{3, 0}},
		{21, UTF16, Position{3, 4}},
		{99, UTF16, Position{3, 4}},
		{-5, UTF16, Position{0, 0}},
	}
	for _, tt := range tests {
		if got := PositionAt(text, tt.offset, tt.enc); got != tt.pos {
			t.Errorf("PositionAt(%d, enc %d) = %v, want %v", tt.offset, tt.enc, got, tt.pos)
		}
	}
}

// Every character boundary survives a round trip through a position.
func TestPositionRoundTrip(t *testing.T) {
	texts := []string{"", "\n", "\r\n", "abc", "a\r\nb\r\n", "日本語\n😀😀\r\nx", "lone\rcr\n", "no newline 🎉"}
	for _, text := range texts {
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			for off := 0; off <= len(text); off++ {
				if off < len(text) && !isBoundary(text, off) {
					continue
				}
				p := PositionAt(text, off, enc)
				if got := OffsetAt(text, p, enc); got != off {
					t.Errorf("%q enc %d: offset %d -> %v -> %d", text, enc, off, p, got)
				}
			}
		}
	}
}

// isBoundary: a rune start that is not the \n of a \r\n.
func isBoundary(text string, off int) bool {
	if text[off]&0xC0 == 0x80 {
		return false
	}
	return !(text[off] == '\n' && off > 0 && text[off-1] == '\r')
}

func TestPositionCursorMatchesPositionAt(t *testing.T) {
	text := "x😀y\r\n世界\n\nz"
	c := positionCursor{text: text, enc: UTF16}
	for off := 0; off <= len(text); off++ {
		want := PositionAt(text, off, UTF16)
		if got := c.at(off); got != want {
			t.Fatalf("cursor at %d = %v, want %v", off, got, want)
		}
	}
	if got, want := c.at(1), PositionAt(text, 1, UTF16); got != want {
		t.Fatalf("cursor going back: %v, want %v", got, want)
	}
}

func ExamplePositionAt() {
	text := "😀 = smile\n"
	fmt.Println(PositionAt(text, 4, UTF16), PositionAt(text, 4, UTF32), PositionAt(text, 4, UTF8))
	// Output: 0:2 0:1 0:4
}
