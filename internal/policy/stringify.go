package policy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// stableStringify writes args as Gemini CLI's stableStringify does, so
// that argsPatterns written for it match here: JSON.stringify's text with
// object keys sorted (by UTF-16 code units, as JavaScript sorts), and
// every top-level key-value pair between NUL bytes, which rules use to
// anchor a pattern to a whole argument ("\x00\"file_path\":...\x00").
func stableStringify(args map[string]any) string {
	if args == nil {
		return ""
	}
	var b strings.Builder
	writeObject(&b, args, true)
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeString(b, v)
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		writeNumber(b, v)
	case float32:
		writeNumber(b, float64(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case map[string]any:
		writeObject(b, v, false)
	case []any:
		b.WriteByte('[')
		for i, item := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, item)
		}
		b.WriteByte(']')
	default:
		writeString(b, fmt.Sprint(v))
	}
}

func writeObject(b *strings.Builder, m map[string]any, top bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		if top {
			b.WriteByte(0)
		}
		writeString(b, k)
		b.WriteByte(':')
		writeValue(b, m[k])
		if top {
			b.WriteByte(0)
		}
	}
	b.WriteByte('}')
}

// compareUTF16 orders strings as JavaScript's default sort does.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// writeNumber writes f as JavaScript's Number#toString does for the
// numbers JSON carries; NaN and infinities are null, as JSON.stringify
// writes them.
func writeNumber(b *strings.Builder, f float64) {
	switch {
	case math.IsNaN(f), math.IsInf(f, 0):
		b.WriteString("null")
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		b.WriteString(strconv.FormatFloat(f, 'f', -1, 64))
	default:
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		}
		// JavaScript writes exponents as e+21, e-7: no leading zero.
		s = strings.Replace(s, "e+0", "e+", 1)
		s = strings.Replace(s, "e-0", "e-", 1)
		b.WriteString(s)
	}
}

// writeString quotes s as JSON.stringify does: only ", \ and control
// characters are escaped (not <, > or &, nor U+2028).
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
