// Package jsonstring encodes a string of valid UTF-8 as encoding/json's
// Marshal does (HTML characters, control characters, U+2028 and U+2029
// escaped), so that a long text (a prompt of up to 16 MiB) can be put in
// JSON made at its final size, copied once, where json.Marshal would grow
// a buffer by doubling and copy the result out again.
package jsonstring

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// jsonEscape is how encoding/json writes byte b of a string when it
// escapes it; "" when b goes out as it is. b is ASCII.
func jsonEscape(b byte) string {
	switch b {
	case '\\':
		return `\\`
	case '"':
		return `\"`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '<':
		return `\u003c`
	case '>':
		return `\u003e`
	case '&':
		return `\u0026`
	}
	if b < 0x20 {
		return `\u00` + string(hexDigits[b>>4]) + string(hexDigits[b&0xF])
	}
	return ""
}

// lineSeparator reports whether s, at i, begins with U+2028 or U+2029,
// which encoding/json escapes (JavaScript ends a line at them).
func lineSeparator(s string, i int) bool {
	return i+3 <= len(s) && s[i] == 0xE2 && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)
}

// Size is the size of s encoded, quotes included.
func Size(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b < utf8.RuneSelf:
			if e := jsonEscape(b); e != "" {
				n += len(e) - 1
			}
		case lineSeparator(s, i):
			n += len(`\u2028`) - 3
			i += 2
		}
	}
	return n
}

// Append appends s encoded, quotes included.
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var e string
		width := 1
		switch b := s[i]; {
		case b < utf8.RuneSelf:
			e = jsonEscape(b)
		case lineSeparator(s, i):
			e, width = `\u202`+string(hexDigits[s[i+2]&0xF]), 3
		}
		if e == "" {
			continue
		}
		dst = append(append(dst, s[start:i]...), e...)
		i += width - 1
		start = i + 1
	}
	return append(append(dst, s[start:]...), '"')
}

// PutBack is enc, JSON made with short stand-ins in the place of long
// texts, with the texts (by their stand-ins, quoted as enc holds them) in
// their places, encoded: made at its final size, each text copied once.
// A stand-in enc does not hold is left out.
func PutBack(enc []byte, texts map[string]string) ([]byte, error) {
	type found struct {
		at   int
		from string
	}
	var places []found
	size := len(enc)
	for standIn, text := range texts {
		at := bytes.Index(enc, []byte(standIn))
		if at < 0 {
			continue
		}
		places = append(places, found{at, standIn})
		size += Size(text) - len(standIn)
	}
	if len(places) == 0 {
		return enc, nil
	}
	slices.SortFunc(places, func(a, b found) int { return cmp.Compare(a.at, b.at) })
	out := make([]byte, 0, size)
	rest := 0
	for _, p := range places {
		out = Append(append(out, enc[rest:p.at]...), texts[p.from])
		rest = p.at + len(p.from)
	}
	out = append(out, enc[rest:]...)
	if len(out) != size {
		return nil, fmt.Errorf("the texts put back came to %d bytes, not %d", len(out), size)
	}
	return out, nil
}
