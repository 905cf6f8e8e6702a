package policy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
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
	if command, ok := args["command"].(string); ok { // a shell call's: most of it
		b.Grow(len(command) + 64)
	}
	writeObject(&b, args, true)
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		jsjson.WriteString(b, v)
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
		jsjson.WriteString(b, fmt.Sprint(v))
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
		jsjson.WriteString(b, k)
		b.WriteByte(':')
		writeValue(b, m[k])
		if top {
			b.WriteByte(0)
		}
	}
	b.WriteByte('}')
}

// compareUTF16 orders strings as JavaScript's default sort does. Below
// U+E000 (all argument names) UTF-16 orders as UTF-8 does, byte by byte.
func compareUTF16(a, b string) int {
	if belowE000(a) && belowE000(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// belowE000 reports whether every character of s is below U+E000: its
// UTF-8 lead bytes are below 0xEE.
func belowE000(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xee {
			return false
		}
	}
	return true
}

// stringifyShell is stableStringify of a shell call's arguments with
// command replaced (shellArgs), written at once: what each command of a
// line is matched against.
func stringifyShell(args map[string]any, command string) string {
	var b strings.Builder
	b.Grow(len(command) + 32)
	b.WriteString("{\x00\"command\":")
	jsjson.WriteString(&b, command)
	b.WriteByte(0)
	if dir, ok := args["dir_path"]; ok {
		b.WriteString(",\x00\"dir_path\":")
		writeValue(&b, dir)
		b.WriteByte(0)
	}
	b.WriteByte('}')
	return b.String()
}

// writeNumber writes f as JavaScript's Number#toString does for the
// numbers JSON carries; NaN and infinities are null, as JSON.stringify
// writes them.
func writeNumber(b *strings.Builder, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b.WriteString("null")
		return
	}
	b.WriteString(jsjson.FormatNumber(f))
}
