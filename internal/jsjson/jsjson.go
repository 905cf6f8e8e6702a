// Package jsjson reads and writes JSON as JavaScript's JSON.parse and
// JSON.stringify(value, null, 2) do, for the files gemini-ls writes byte
// for byte as Gemini CLI 0.61 writes them (/export-session, /chat share),
// and Decode reads into Go types every JSON Gemini CLI reads with
// JSON.parse (hook output, settings, extension manifests, MCP configs,
// trusted folders): encoding/json alone would match member names without
// case and merge a member given twice, where JavaScript reads exact names
// and only the last of them.
//
// Invariants:
//   - A value is nil (null), bool, float64 (or int, written as a
//     number), string, []any or *Object.
//   - An object lists its keys in JavaScript's order: the array indexes
//     ("0", "7") ascending, then the other keys as they were first set;
//     a key parsed twice keeps its first place and its last value.
//   - A number is a double, written as JavaScript writes one (1e+21,
//     1.5e-7, -0 as 0); one too large for a double is Infinity, which
//     Stringify writes as null, as JSON.stringify does.
//   - Decode sets a field only from a member of exactly its JSON name,
//     the last of that name, whole, at every depth; a value that decodes
//     itself (json.RawMessage, an Unmarshaler, an any) gets its text with
//     the duplicates already resolved.
//   - Strings are escaped as JSON.stringify escapes them: the quote, the
//     backslash and the controls below U+0020, nothing else (U+2028 and
//     non-ASCII stay as they are). A byte that is not UTF-8 is U+FFFD.
//
// What Go cannot hold of JavaScript is out of reach: a lone surrogate
// escaped in a string (\ud800) is read as U+FFFD.
package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object is a JSON object with its keys in JavaScript's order.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject is an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Get is key's value, and whether o has key.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Has reports whether o has key.
func (o *Object) Has(key string) bool {
	_, ok := o.vals[key]
	return ok
}

// Set sets key to v, in key's place if o has it, else after the others.
func (o *Object) Set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Keys are o's keys in JavaScript's order: the array indexes ascending,
// then the others in the order they were set.
func (o *Object) Keys() []string {
	var indexes, names []string
	for _, k := range o.keys {
		if isArrayIndex(k) {
			indexes = append(indexes, k)
		} else {
			names = append(names, k)
		}
	}
	slices.SortFunc(indexes, func(a, b string) int {
		return compareNumbers(a, b)
	})
	return append(indexes, names...)
}

// Without is o without key, its other keys in their order: a copy, or
// o itself when it has no key.
func (o *Object) Without(key string) *Object {
	if !o.Has(key) {
		return o
	}
	out := NewObject()
	for _, k := range o.keys {
		if k != key {
			out.Set(k, o.vals[k])
		}
	}
	return out
}

// Spread sets every key of v on o, as {...o, ...v} does: an object's
// keys, an array's indexes; nothing for any other value.
func (o *Object) Spread(v any) {
	switch v := v.(type) {
	case *Object:
		for _, k := range v.Keys() {
			o.Set(k, v.vals[k])
		}
	case []any:
		for i, e := range v {
			o.Set(strconv.Itoa(i), e)
		}
	}
}

// isArrayIndex reports whether k is a key JavaScript orders first: an
// integer below 2^32-1 written as JavaScript writes it.
func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || k != "0" && k[0] == '0' {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// compareNumbers compares two array indexes.
func compareNumbers(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// Parse is JSON.parse(data): an error for anything but one JSON value
// between white space.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("jsjson: text after the JSON value")
	}
	return v, nil
}

// ParseObject is Parse of a text that must hold an object, as the files
// Gemini CLI keeps a map in do.
func ParseObject(data []byte) (*Object, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*Object)
	if !ok {
		return nil, errors.New("jsjson: not an object")
	}
	return obj, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return parseArray(dec)
		}
		return parseObject(dec)
	case json.Number:
		// Out of a double's range, JavaScript's number is ±Infinity or
		// 0, which ParseFloat returns with its range error.
		f, _ := strconv.ParseFloat(string(tok), 64)
		return f, nil
	}
	return tok, nil // nil, bool, string
}

func parseArray(dec *json.Decoder) ([]any, error) {
	list := []any{}
	for dec.More() {
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
	_, err := dec.Token() // ]
	return list, err
}

func parseObject(dec *json.Decoder) (*Object, error) {
	o := NewObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("jsjson: object key %v is not a string", tok)
		}
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
	}
	_, err := dec.Token() // }
	return o, err
}

// Stringify is JSON.stringify(v, null, 2).
func Stringify(v any) []byte {
	var b bytes.Buffer
	write(&b, v, "")
	return b.Bytes()
}

const gap = "  "

func write(b *bytes.Buffer, v any, indent string) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			b.WriteString("null")
		} else {
			b.WriteString(FormatNumber(v))
		}
	case string:
		WriteString(b, v)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + gap)
			write(b, e, indent+gap)
		}
		b.WriteString("\n" + indent + "]")
	case *Object:
		keys := v.Keys()
		if len(keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + indent + gap)
			WriteString(b, k)
			b.WriteString(": ")
			write(b, v.vals[k], indent+gap)
		}
		b.WriteString("\n" + indent + "}")
	default:
		panic(fmt.Sprintf("jsjson: %T is not a JSON value", v))
	}
}

// Writer is what a quoted string is written to: a bytes.Buffer or a
// strings.Builder.
type Writer interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
	WriteRune(r rune) (int, error)
}

// WriteString writes s quoted as JSON.stringify quotes it: only ", \ and
// control characters are escaped (not <, > or &, nor U+2028).
func WriteString(b Writer, s string) {
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
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
				b.WriteRune(r) // utf8.RuneError for a byte that is not UTF-8
			}
		}
	}
	b.WriteByte('"')
}

// FormatNumber is String(f) in JavaScript: the shortest digits that
// read back as f, in exponent form from 1e21 up and below 1e-6.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0" // -0 too
	}
	if abs := math.Abs(f); abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1.5e-07, 1e+21
		mantissa, exp, _ := strings.Cut(s, "e")
		return mantissa + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0")
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
