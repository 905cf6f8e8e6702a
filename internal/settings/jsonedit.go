package settings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// SetValue sets the member at keys (literal names, not a dotted path) of
// the settings file at path to value, as Gemini CLI 0.61's commands write
// it (LoadedSettings.setValue, then comment-json's applyKeyDiff): an
// object value is merged member by member into the object there (its
// members value lacks removed, those it has set in place, new ones added
// last), anything else replaces the old value, missing objects on the way
// are added last in theirs. value is marshalled as encoding/json does (a
// struct's fields in order) without HTML escaping.
//
// The file is written as 0.61 writes it: a file without comments as
// JSON.stringify(settings, null, 2) writes it, with no final newline, so
// the two tools write the same bytes; in a file with comments only the
// changed values' text changes (0.61 re-indents the whole file), so the
// comments and layout stay: every comment but those inside a value
// replaced or a member deleted, in an object that holds nothing else too
// (a new member goes after them), and in a file of nothing else (the
// object goes after them). A missing file is created; one that is not a
// JSON object, or that another program changed meanwhile, is an error
// and is left alone.
func SetValue(ctx context.Context, path string, keys []string, value any) error {
	raw, err := marshalPlain(value)
	if err != nil {
		return fmt.Errorf("editing %s: %w", path, err)
	}
	return editFile(ctx, path, func(src []byte, _ map[string]any) ([]byte, error) {
		out, err := setRaw(src, keys, raw)
		if err != nil {
			return nil, err
		}
		return restringify(src, out)
	})
}

// DeleteValue removes the member at keys of the settings file at path,
// edited and written as SetValue does; found is false, and nothing is
// written, when the file (or the member) is not there.
func DeleteValue(ctx context.Context, path string, keys []string) (found bool, err error) {
	err = editFile(ctx, path, func(src []byte, obj map[string]any) ([]byte, error) {
		if _, ok := lookupKeys(obj, keys...); !ok {
			return nil, errUnchanged
		}
		out, err := deleteMember(src, keys)
		if err != nil {
			return nil, err
		}
		return restringify(src, out)
	})
	if errors.Is(err, errUnchanged) {
		return false, nil
	}
	return err == nil, err
}

// ReadValue is the raw JSON of the member at keys of the settings file at
// path (comments left out); ok is false when the file or the member is
// not there.
func ReadValue(path string, keys []string) (raw json.RawMessage, ok bool, err error) {
	src, err := safefile.Read(path, maxSettingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	obj, err := parseObject(path, src)
	if err != nil {
		return nil, false, err
	}
	v, ok := lookupKeys(obj, keys...)
	if !ok {
		return nil, false, nil
	}
	raw, err = json.Marshal(v)
	return raw, true, err
}

// marshalPlain is v as compact JSON, "<", ">" and "&" left as they are,
// as JSON.stringify writes them.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// restringify is out, the edited file, re-indented as JSON.stringify with
// two spaces when the file had no comments (nothing stripJSONC removes).
// With comments, which 0.61 keeps while it re-indents everything else,
// each top-level member's value that holds no comment is re-indented, the
// rest left as it is.
func restringify(src, out []byte) ([]byte, error) {
	if !bytes.Equal(stripJSONC(src), src) {
		clean := stripJSONC(out)
		ms, err := members(clean, skipSpace(clean, 0))
		if err != nil {
			return nil, err
		}
		// In one pass: replacing each value in turn would copy the file
		// once a member, quadratic in a file of many short members.
		// The indentation of the line a key is on is found once a line,
		// for the same reason.
		var b bytes.Buffer
		last, lineStart, indent := 0, -1, ""
		for _, m := range ms {
			if !bytes.Equal(clean[m.valStart:m.valEnd], out[m.valStart:m.valEnd]) {
				continue
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, out[m.valStart:m.valEnd]); err != nil {
				return nil, err
			}
			if k := bytes.LastIndexByte(out[last:m.keyStart], '\n'); k >= 0 || lineStart < 0 {
				lineStart = last + k + 1
				indent = indentOf(out, lineStart)
			}
			b.Write(out[last:m.valStart])
			b.Write(indentRaw(compact.Bytes(), indent))
			last = m.valEnd
		}
		b.Write(out[last:])
		out = b.Bytes()
		// Nothing after the object but blanks: 0.61 ends the file there.
		clean = stripJSONC(out)
		if end, err := valueEnd(clean, skipSpace(clean, 0)); err == nil && len(bytes.TrimSpace(out[end:])) == 0 {
			out = out[:end]
		}
		return out, nil
	}
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, out); err != nil {
		return nil, err
	}
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return indented.Bytes(), nil
}

// setRaw returns src with the member at keys set to raw (compact JSON).
func setRaw(src []byte, keys []string, raw []byte) ([]byte, error) {
	if len(keys) == 0 {
		return nil, errors.New("no key to set")
	}
	for _, key := range keys {
		// JSON cannot hold it: written, it would be another name.
		if !utf8.ValidString(key) {
			return nil, fmt.Errorf("the name %q is not valid UTF-8", key)
		}
	}
	clean := stripJSONC(src)
	start := skipSpace(clean, 0)
	if start == len(clean) {
		return intoNoObject(src, indentRaw(nestRaw(keys, raw), "")), nil
	}
	if clean[start] != '{' {
		return nil, errors.New("the file does not hold a JSON object")
	}
	open := start
	for i, key := range keys {
		ms, err := members(clean, open)
		if err != nil {
			return nil, err
		}
		j := lastIndex(ms, key)
		if j < 0 {
			return appendMember(src, clean, open, ms, key, nestRaw(keys[i+1:], raw))
		}
		m := ms[j]
		last := i == len(keys)-1
		switch {
		case !last && clean[m.valStart] == '{':
			open = m.valStart
			continue
		case !last:
			return replaceValue(src, m, nestRaw(keys[i+1:], raw)), nil
		case clean[m.valStart] == '{' && len(raw) > 0 && raw[0] == '{':
			return mergeObject(src, keys, m, clean, raw)
		}
		return replaceValue(src, m, raw), nil
	}
	return nil, errors.New("no key to set")
}

// intoNoObject is a file that holds no value, only blanks and comments,
// with obj in it: after the comments, on a line of its own, unless the
// file ends inside a block comment left open, which would hold it; then
// before them.
func intoNoObject(src, obj []byte) []byte {
	c := scanComments(src, 0, len(src))
	switch {
	case c.end == 0:
		return obj
	case c.open:
		return append(append(obj, '\n'), src...)
	}
	return append(append(slices.Clip(src[:c.end]), '\n'), obj...)
}

// commentsScan is what scanComments finds between two offsets that hold
// only blanks, comments and a comma.
type commentsScan struct {
	end   int  // where the last comment ends: the line break after a line comment
	comma int  // the comma outside the comments, -1 when there is none
	open  bool // the last comment is a block comment never closed
}

// scanComments reads src[from:to], which holds no value (the inside of
// an object of no members, a file of no object): its comments, and the
// one comma stripJSONC lets such an object hold as a trailing one ({,}).
func scanComments(src []byte, from, to int) commentsScan {
	c := commentsScan{end: from, comma: -1}
	for i := from; i < to; {
		rest := src[i:to]
		switch {
		case bytes.HasPrefix(rest, []byte("//")):
			n := bytes.IndexByte(rest, '\n')
			if n < 0 {
				n = len(rest)
			}
			i += n
			c.end = i
		case bytes.HasPrefix(rest, []byte("/*")):
			n := bytes.Index(rest[2:], []byte("*/"))
			c.open = n < 0
			if c.open {
				n = len(rest) - 4
			}
			i += n + 4
			c.end = i
		case rest[0] == ',':
			c.comma = i
			i++
		default:
			i++
		}
	}
	return c
}

// mergeObject merges raw, an object, into the object m holds, as
// comment-json's applyKeyDiff does.
func mergeObject(src []byte, keys []string, m member, clean, raw []byte) ([]byte, error) {
	old, err := members(clean, m.valStart)
	if err != nil {
		return nil, err
	}
	next, err := rawMembers(raw)
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, n := range next {
		has[n.key] = true
	}
	out := src
	removed := map[string]bool{}
	for _, o := range old {
		if has[o.key] || removed[o.key] {
			continue
		}
		removed[o.key] = true
		if out, err = deleteMember(out, append(slices.Clone(keys), o.key)); err != nil {
			return nil, err
		}
	}
	for _, n := range next {
		if out, err = setRaw(out, append(slices.Clone(keys), n.key), n.raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// member is one member of an object in a file: offsets of its key's
// opening quote, and of its value.
type member struct {
	key              string
	keyStart         int
	valStart, valEnd int
}

// members lists the members of the object whose '{' is at open in clean.
func members(clean []byte, open int) ([]member, error) {
	var out []member
	i := skipSpace(clean, open+1)
	if i < len(clean) && clean[i] == '}' {
		return nil, nil
	}
	for {
		keyEnd, err := valueEnd(clean, i)
		if err != nil || clean[i] != '"' {
			return nil, errors.New("the file is not valid JSON")
		}
		var name string
		if err := json.Unmarshal(clean[i:keyEnd], &name); err != nil {
			return nil, err
		}
		keyStart := i
		i = skipSpace(clean, keyEnd)
		if i >= len(clean) || clean[i] != ':' {
			return nil, errors.New("the file is not valid JSON")
		}
		start := skipSpace(clean, i+1)
		end, err := valueEnd(clean, start)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: name, keyStart: keyStart, valStart: start, valEnd: end})
		i = skipSpace(clean, end)
		switch {
		case i < len(clean) && clean[i] == ',':
			i = skipSpace(clean, i+1)
			if i < len(clean) && clean[i] == '}' {
				return out, nil
			}
		case i < len(clean) && clean[i] == '}':
			return out, nil
		default:
			return nil, errors.New("the file is not valid JSON")
		}
	}
}

// rawMember is one member of a compact JSON object, in order.
type rawMember struct {
	key string
	raw json.RawMessage
}

func rawMembers(raw []byte) ([]rawMember, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []rawMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, rawMember{key, v})
	}
	return out, nil
}

// nestRaw is raw under keys, compact.
func nestRaw(keys []string, raw []byte) []byte {
	for i := len(keys) - 1; i >= 0; i-- {
		raw = []byte("{" + quote(keys[i]) + ":" + string(raw) + "}")
	}
	return raw
}

// indentRaw is raw, compact JSON, indented by two spaces from prefix.
func indentRaw(raw []byte, prefix string) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, prefix, "  "); err != nil {
		return raw // cannot happen: raw was marshalled or compacted
	}
	return buf.Bytes()
}

func replaceValue(src []byte, m member, raw []byte) []byte {
	return splice(src, m.valStart, m.valEnd, string(indentRaw(raw, indentOf(src, m.keyStart))))
}

// appendMember adds key: raw as the last member of the object at open.
func appendMember(src, clean []byte, open int, ms []member, key string, raw []byte) ([]byte, error) {
	end, err := valueEnd(clean, open)
	if err != nil {
		return nil, err
	}
	closing := end - 1
	outer := indentOf(src, open)
	inner := outer + "  "
	text := quote(key) + ": " + string(indentRaw(raw, inner))
	if len(ms) == 0 {
		// After the comments the object may hold, which stay; a comma
		// there, no longer trailing, goes.
		c := scanComments(src, open+1, closing)
		out := splice(src, c.end, closing, "\n"+inner+text+"\n"+outer)
		if c.comma >= 0 && c.comma < c.end {
			out = splice(out, c.comma, c.comma+1, "")
		}
		return out, nil
	}
	if lastLine := indentOf(src, ms[len(ms)-1].keyStart); bytes.LastIndexByte(src[:ms[len(ms)-1].keyStart], '\n') > open {
		inner = lastLine // the members' own indentation
		text = quote(key) + ": " + string(indentRaw(raw, inner))
	}
	after := ms[len(ms)-1].valEnd
	return splice(src, after, after, ",\n"+inner+text), nil
}

// deleteMember returns src without the members at keys: every one of
// that name in its object.
func deleteMember(src []byte, keys []string) ([]byte, error) {
	// A key written twice in one object reads as its last; once that one
	// is gone, the one before it would be read. Each goes, up to a bound
	// that keeps a hostile file from costing the square of its size.
	for range maxDuplicates {
		out, err := deleteLastMember(src, keys)
		if err != nil || bytes.Equal(out, src) {
			return out, err
		}
		src = out
	}
	if out, err := deleteLastMember(src, keys); err == nil && !bytes.Equal(out, src) {
		return nil, fmt.Errorf("%s is written more than %d times in one object: edit the file by hand", strings.Join(keys, "."), maxDuplicates)
	}
	return src, nil
}

// maxDuplicates bounds how many times deleteMember removes one key.
const maxDuplicates = 64

// deleteLastMember is deleteMember of the last member called keys'
// last at keys' path, the one a JSON parser reads.
func deleteLastMember(src []byte, keys []string) ([]byte, error) {
	clean := stripJSONC(src)
	start := skipSpace(clean, 0)
	if start == len(clean) || clean[start] != '{' {
		return nil, errors.New("the file does not hold a JSON object")
	}
	open := start
	for i, key := range keys {
		ms, err := members(clean, open)
		if err != nil {
			return nil, err
		}
		j := lastIndex(ms, key)
		if j < 0 {
			return src, nil
		}
		m := ms[j]
		if i < len(keys)-1 {
			if clean[m.valStart] != '{' {
				return src, nil
			}
			open = m.valStart
			continue
		}
		if len(ms) == 1 {
			return deleteOnlyMember(src, clean, open, m)
		}
		from := m.keyStart
		if lineStart := bytes.LastIndexByte(src[:from], '\n') + 1; len(bytes.TrimLeft(src[lineStart:from], " \t")) == 0 {
			from = lineStart
		}
		if j == len(ms)-1 {
			// The last: its text, and the comma before it, go; a
			// comment between them stays.
			prevLine := bytes.LastIndexByte(src[:max(from-1, 0)], '\n') + 1
			if from != m.keyStart && bytes.Equal(src[prevLine:from], clean[prevLine:from]) {
				from-- // the line break before it too, unless it ends a comment
			}
			comma := skipSpace(clean, ms[j-1].valEnd)
			return splice(splice(src, from, m.valEnd, ""), comma, comma+1, ""), nil
		}
		to := skipSpace(clean, m.valEnd) // the comma
		to++
		rest := to
		for rest < len(src) && (src[rest] == ' ' || src[rest] == '\t' || src[rest] == '\r') {
			rest++
		}
		if rest < len(src) && src[rest] == '\n' && from != m.keyStart {
			to = rest + 1
		}
		return splice(src, from, to, ""), nil
	}
	return src, nil
}

// deleteOnlyMember removes m, the only member of the object at open, and
// a comma after it: its line too when nothing else is on it, never the
// comments around it. An object left holding only blanks is written {},
// as 0.61 writes it.
func deleteOnlyMember(src, clean []byte, open int, m member) ([]byte, error) {
	from, to := m.keyStart, m.valEnd
	if comma := skipSpace(clean, to); comma < len(clean) && clean[comma] == ',' {
		to = comma + 1
	}
	if lineStart := bytes.LastIndexByte(src[:from], '\n') + 1; len(bytes.TrimLeft(src[lineStart:from], " \t")) == 0 {
		from = lineStart
		rest := to
		for rest < len(src) && (src[rest] == ' ' || src[rest] == '\t' || src[rest] == '\r') {
			rest++
		}
		if rest < len(src) && src[rest] == '\n' {
			to = rest + 1
		}
	}
	out := splice(src, from, to, "")
	cleanOut := stripJSONC(out)
	end, err := valueEnd(cleanOut, open)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(out[open+1:end-1])) == 0 {
		return splice(out, open+1, end-1, ""), nil
	}
	return out, nil
}

// lastIndex is the index of the last member called key, as a JSON parser
// keeps the last; -1 when there is none.
func lastIndex(ms []member, key string) int {
	for j := len(ms) - 1; j >= 0; j-- {
		if ms[j].key == key {
			return j
		}
	}
	return -1
}

// MemberNames are the names of the members of the object at keys in the
// settings file at path, in the file's order, each once; none when the
// file or the object is not there or cannot be read (Load reports such
// a file).
func MemberNames(path string, keys []string) []string {
	src, err := safefile.Read(path, maxSettingsFile)
	if err != nil {
		return nil
	}
	clean := stripJSONC(src)
	open := skipSpace(clean, 0)
	if open == len(clean) || clean[open] != '{' {
		return nil
	}
	for _, key := range keys {
		ms, err := members(clean, open)
		if err != nil {
			return nil
		}
		j := lastIndex(ms, key)
		if j < 0 || clean[ms[j].valStart] != '{' {
			return nil
		}
		open = ms[j].valStart
	}
	ms, err := members(clean, open)
	if err != nil {
		return nil
	}
	var names []string
	for _, m := range ms {
		if !slices.Contains(names, m.key) {
			names = append(names, m.key)
		}
	}
	return names
}
