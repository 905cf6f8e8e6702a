package lsptest

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// applyIndependently applies edits the plainest way, independent of the
// server's position math, so a bug there cannot hide behind the same bug
// here: lines end at \n, columns count the encoding's units.
func applyIndependently(text string, edits []workspace.TextEdit, enc workspace.Encoding) (string, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		start, err := offsetOf(text, e.Range.Start, enc)
		if err != nil {
			return "", err
		}
		end, err := offsetOf(text, e.Range.End, enc)
		if err != nil {
			return "", err
		}
		spans[i] = span{start, end, e.NewText}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.start < last || s.end < s.start {
			return "", fmt.Errorf("overlapping or reversed edits")
		}
		b.WriteString(text[last:s.start])
		b.WriteString(s.text)
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

func offsetOf(text string, p workspace.Position, enc workspace.Encoding) (int, error) {
	lines := strings.SplitAfter(text, "\n")
	if p.Line >= len(lines) {
		if p.Line == len(lines) && p.Character == 0 {
			return len(text), nil
		}
		return 0, fmt.Errorf("line %d past the end (%d lines)", p.Line, len(lines))
	}
	off := 0
	for _, l := range lines[:p.Line] {
		off += len(l)
	}
	line := strings.TrimRight(lines[p.Line], "\r\n")
	units := 0
	for i, r := range line {
		if units == p.Character {
			return off + i, nil
		}
		if units > p.Character {
			return 0, fmt.Errorf("character %d of line %d falls inside a character", p.Character, p.Line)
		}
		units += unitLen(r, enc)
	}
	if units == p.Character {
		return off + len(line), nil
	}
	return 0, fmt.Errorf("character %d past the end of line %d (%d units)", p.Character, p.Line, units)
}

// typedChange is the one range a user's typing replaced, found without the
// server's diff: the common prefix and suffix of old and new trimmed away.
func typedChange(old, new string, enc workspace.Encoding) (workspace.Range, string) {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	for p > 0 && p < len(old) && !utf8.RuneStart(old[p]) {
		p--
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	for q > 0 && len(old)-q < len(old) && !utf8.RuneStart(old[len(old)-q]) {
		q--
	}
	return workspace.Range{Start: positionOf(old, p, enc), End: positionOf(old, len(old)-q, enc)}, new[p : len(new)-q]
}

// positionOf converts a byte offset (on a character boundary) to a position.
func positionOf(text string, offset int, enc workspace.Encoding) workspace.Position {
	line := strings.Count(text[:offset], "\n")
	start := strings.LastIndexByte(text[:offset], '\n') + 1
	units := 0
	for _, r := range text[start:offset] {
		units += unitLen(r, enc)
	}
	return workspace.Position{Line: line, Character: units}
}

// unitLen is how many units of enc the character r takes.
func unitLen(r rune, enc workspace.Encoding) int {
	switch enc {
	case workspace.UTF8:
		return utf8.RuneLen(r)
	case workspace.UTF32:
		return 1
	default:
		return utf16.RuneLen(r)
	}
}
