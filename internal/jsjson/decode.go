package jsjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Decode reads data into v as Gemini CLI reads the same file with
// JSON.parse and then its members by name: a member counts only when its
// name is a field's json name exactly ("Decision" is not "decision"), and
// of members of the same name only the last counts, whole (encoding/json
// would merge an object given twice into one struct or map). This holds
// at every depth, in the structs, maps, slices and pointers v leads to.
//
// A value v leads to that decodes itself (a json.Unmarshaler, a
// json.RawMessage, an any) is given its text with duplicates resolved
// the same way, every name kept; one that decodes it into a struct must
// call Decode in turn.
//
// Errors are encoding/json's: a *json.SyntaxError for a text that is not
// JSON (its offset in data), a *json.UnmarshalTypeError for a value of
// the wrong type (its Field named as the JSON names it).
func Decode(data []byte, v any) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, v) // its error, v untouched
	}
	r := reader{data: data}
	val := r.value()
	var b bytes.Buffer
	b.Grow(len(data))
	t := reflect.TypeOf(v)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	writeFor(&b, val, t)
	return json.Unmarshal(b.Bytes(), v)
}

// node is one value of a valid JSON text: a scalar's text, an object's
// members (each name once: in its first place, with its last value, as
// JSON.parse keeps them) or an array's elements.
type node struct {
	kind    byte // '{', '[', or 0 for a scalar
	raw     []byte
	members []member
	elems   []*node
}

type member struct {
	name    string // as decoded: "\u0064" is "d"
	rawName []byte // as written, quotes included
	value   *node
}

// reader reads a text json.Valid accepted: it meets no error.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *reader) value() *node {
	r.space()
	switch r.data[r.pos] {
	case '{':
		return r.object()
	case '[':
		return r.array()
	case '"':
		return &node{raw: r.str()}
	}
	start := r.pos
	for r.pos < len(r.data) && !strings.ContainsRune(" \t\n\r,]}", rune(r.data[r.pos])) {
		r.pos++
	}
	return &node{raw: r.data[start:r.pos]}
}

// str is the string at r.pos, quotes included.
func (r *reader) str() []byte {
	start := r.pos
	r.pos++
	for r.data[r.pos] != '"' {
		if r.data[r.pos] == '\\' {
			r.pos++
		}
		r.pos++
	}
	r.pos++
	return r.data[start:r.pos]
}

func (r *reader) object() *node {
	n := &node{kind: '{'}
	index := map[string]int{}
	r.pos++ // {
	for {
		r.space()
		if r.data[r.pos] == '}' {
			r.pos++
			return n
		}
		if r.data[r.pos] == ',' {
			r.pos++
			r.space()
		}
		rawName := r.str()
		name := string(rawName[1 : len(rawName)-1])
		if bytes.IndexByte(rawName, '\\') >= 0 || !utf8.Valid(rawName) {
			_ = json.Unmarshal(rawName, &name) // valid: cannot fail
		}
		r.space()
		r.pos++ // :
		val := r.value()
		if i, ok := index[name]; ok {
			n.members[i].value = val
			continue
		}
		index[name] = len(n.members)
		n.members = append(n.members, member{name: name, rawName: rawName, value: val})
	}
}

func (r *reader) array() *node {
	n := &node{kind: '['}
	r.pos++ // [
	for {
		r.space()
		switch r.data[r.pos] {
		case ']':
			r.pos++
			return n
		case ',':
			r.pos++
		}
		n.elems = append(n.elems, r.value())
	}
}

// decodesItself reports whether encoding/json hands a *t its text to
// decode as it will.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// writeFor writes n as the text encoding/json reads into a t as JSON.parse
// reads n: an object read into a struct keeps only the members named
// exactly as its fields. A nil t (an any, a value that decodes itself)
// keeps every member.
func writeFor(b *bytes.Buffer, n *node, t reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && decodesItself(t) {
		t = nil
	}
	switch n.kind {
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			writeFor(b, e, elem)
		}
		b.WriteByte(']')
	case '{':
		var fields map[string]reflect.Type
		var elem reflect.Type
		switch {
		case t == nil:
		case t.Kind() == reflect.Struct:
			fields = fieldTypes(t)
		case t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		b.WriteByte('{')
		first := true
		for _, m := range n.members {
			mt := elem
			if fields != nil {
				var ok bool
				if mt, ok = fields[m.name]; !ok {
					continue // no field of this exact name: JavaScript reads none
				}
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.Write(m.rawName)
			b.WriteByte(':')
			writeFor(b, m.value, mt)
		}
		b.WriteByte('}')
	default:
		b.Write(n.raw)
	}
}

// fieldTypes are the fields encoding/json decodes into a struct of type
// t, by their exact JSON names: the tag's name, else the Go name; an
// untagged embedded struct's fields promoted, the shallower of two of the
// same name kept.
func fieldTypes(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	for _, et := range embedded {
		for name, ft := range fieldTypes(et) {
			if _, ok := fields[name]; !ok {
				fields[name] = ft
			}
		}
	}
	return fields
}
