package tomldepth

import (
	"fmt"
	"strings"
)

// MaxDepth is the most dotted parts one key, or open brackets, a text may
// have.
const MaxDepth = 64

// MaxPath is the most tables and arrays a value may be inside, counting
// every part of the dotted keys on the way ([a.b] then c.d = {e = 1}: 5).
// The library's time grows faster than the square of that product: 8 s
// for a 64 KiB line of inline tables 64 deep each under a 63-part key,
// which MaxDepth alone lets through; and a file of many values twice as
// deep as this bound is already read in more than linear time.
const MaxPath = MaxDepth

// frame is a bracket open around the reading: '{' an inline table, '['
// an array, and the path depth of the container it is in.
type frame struct {
	bracket byte
	base    int
}

// Check is nil unless text nests deeper than MaxDepth or MaxPath; it
// reads text once.
func Check(text string) error {
	var open []frame
	atKey := true      // at a key: a line's start, or after '{' or ',' in an inline table
	dots, line := 0, 1 // the current key's dots
	inHeader := false  // in a table's [header]
	base := 0          // the path depth of the table or array being read
	value := 0         // the path depth of the value about to start
	deeper := func() error {
		if value > MaxPath {
			return fmt.Errorf("line %d: a value inside more than %d tables and arrays (each part of a dotted key counting as one), which gemini-ls does not read", line, MaxPath)
		}
		return nil
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '#':
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j - 1
			} else {
				i = len(text)
			}
		case '"', '\'':
			i = stringEnd(text, i) - 1
		case '\n':
			line++
			if len(open) == 0 {
				atKey, dots = true, 0
			}
		case '.':
			if atKey {
				if dots++; dots >= MaxDepth {
					return fmt.Errorf("line %d: a key of more than %d dotted parts, which gemini-ls does not read", line, MaxDepth)
				}
			}
		case '=':
			value = base + dots + 1
			if err := deeper(); err != nil {
				return err
			}
			atKey, dots = false, 0
		case '[':
			if atKey && len(open) == 0 {
				inHeader = true
				continue // a table's header, whose key's dots count
			}
			open = append(open, frame{c, base})
			base, value = value, value+1 // its elements are one deeper
			if err := deeper(); err != nil {
				return err
			}
		case '{':
			open = append(open, frame{c, base})
			base = value
			atKey, dots = true, 0
		case ']', '}':
			if len(open) > 0 {
				base = open[len(open)-1].base
				open = open[:len(open)-1]
			} else if inHeader {
				base, inHeader = dots+1, false // the keys under it start here
			}
		case ',':
			if len(open) > 0 {
				if open[len(open)-1].bracket == '{' {
					atKey, dots = true, 0
				} else {
					value = base + 1
				}
			}
		}
		if len(open) > MaxDepth {
			return fmt.Errorf("line %d: more than %d arrays and inline tables one inside another, which gemini-ls does not read", line, MaxDepth)
		}
	}
	return nil
}

// stringEnd is the index after the string that starts at text[i]: basic
// ("…", with escapes) or literal ('…'), on one line or, tripled, on
// several; the end of text when it is not closed.
func stringEnd(text string, i int) int {
	q := text[i]
	if strings.HasPrefix(text[i:], strings.Repeat(string(q), 3)) {
		for j := i + 3; j < len(text); j++ {
			switch {
			case q == '"' && text[j] == '\\':
				j++
			case strings.HasPrefix(text[j:], strings.Repeat(string(q), 3)):
				return j + 3
			}
		}
		return len(text)
	}
	for j := i + 1; j < len(text); j++ {
		switch {
		case q == '"' && text[j] == '\\':
			j++
		case text[j] == q:
			return j + 1
		case text[j] == '\n':
			return j // unclosed: the line ends it
		}
	}
	return len(text)
}
