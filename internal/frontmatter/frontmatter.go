// Package frontmatter reads the YAML front matter of Gemini CLI's
// Markdown files (skills' SKILL.md, agents' *.md): the subset of YAML they
// hold, which js-yaml reads in Gemini CLI. Mappings and lists, in block
// and flow style, and scalars: plain (typed as YAML's core schema types
// them), quoted, and | and > blocks. What YAML would refuse is an error;
// so is what lies beyond the subset (anchors, tags, complex keys), except
// as a scalar nobody reads as a string (Kind Other).
package frontmatter

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// Kind is what a Value is.
type Kind int

const (
	Null Kind = iota
	String
	Number
	Bool
	List
	Map
	// Other is a value of YAML beyond the subset (an alias, a tag):
	// neither a string nor anything else one reads.
	Other
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case String:
		return "string"
	case Number:
		return "number"
	case Bool:
		return "boolean"
	case List:
		return "array"
	case Map:
		return "object"
	}
	return "unsupported value"
}

// Value is one YAML value.
type Value struct {
	Kind Kind
	// Text is a String's text, and a Number's or Bool's as written.
	Text string
	Num  float64
	Bool bool
	List []Value
	// Keys are a Map's keys in their order; Fields its values.
	Keys   []string
	Fields map[string]Value
}

// Get is a Map's value at key.
func (v Value) Get(key string) (Value, bool) {
	f, ok := v.Fields[key]
	return f, ok
}

// Split finds content's front matter and the body after it, as Gemini
// CLI's FRONTMATTER_REGEX does (0.61 bundle chunk-JDPZ4CE3.js:338444).
func Split(content string) (front, body string, ok bool) {
	m := frontMatterRE.FindStringSubmatch(content)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

var frontMatterRE = lazyregexp.New(`(?s)^---\r?\n(.*?)\r?\n---(?:\r?\n(.*))?`)

var errNotYAML = errors.New("not YAML this reader understands")

// SyntaxError is YAML the front matter cannot hold; Line is 1-based in
// the front matter, 0 when unknown.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.Msg
}

// Parse reads text, front matter without its --- lines. Empty text is
// Null, as js-yaml loads it.
func Parse(text string) (Value, error) {
	lines := splitLines(text)
	v, err := parseBlock(lines)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return Value{}, err
		}
		return Value{}, &SyntaxError{Msg: "invalid YAML"}
	}
	return v, nil
}

func splitLines(text string) []string {
	return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// skippable are blank lines and comment lines, which no block entry
// begins with.
func skippable(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// isSeqItem reports whether s (a line from its indentation on) begins a
// block sequence's item.
func isSeqItem(s string) bool {
	return s == "-" || strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "-\t")
}

// mapKey is a block mapping's key starting a line, and its value.
var mapKey = lazyregexp.New(`^([^\s#:'"\-\[\]{}?,&*!|>%@` + "`" + `][^:]*?|-[^\s:][^:]*?):(?:[ \t]+(.*))?$`)

// quotedKey is a quoted block mapping key and its value.
var quotedKey = lazyregexp.New(`^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')[ \t]*:(?:[ \t]+(.*))?$`)

func isMapEntry(s string) bool { _, _, ok := splitKey(s); return ok }

// splitKey reads a block mapping entry's key, plain or quoted, and the
// rest of its line.
func splitKey(s string) (key, rest string, ok bool) {
	if m := mapKey.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1]), m[2], true
	}
	m := quotedKey.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	v, err := quoted(m[1], nil, m[1][:1])
	if err != nil {
		return "", "", false
	}
	return v.Text, m[2], true
}

// parseBlock reads lines as one block node: a mapping, a sequence, or a
// scalar; all blank, null.
func parseBlock(lines []string) (Value, error) {
	first := -1
	for i, l := range lines {
		if !skippable(l) {
			first = i
			break
		}
	}
	if first < 0 {
		return Value{Kind: Null}, nil
	}
	if strings.HasPrefix(strings.TrimLeft(lines[first], " "), "\t") {
		return Value{}, &SyntaxError{Line: first + 1, Msg: "tabs may not indent YAML"}
	}
	ind := indentOf(lines[first])
	head := lines[first][ind:]
	switch {
	case isSeqItem(head):
		return parseSequence(lines, first, ind)
	case isMapEntry(head):
		return parseMapping(lines, first, ind)
	}
	// A scalar on its own: the whole block.
	return parseValue(head, lines[first+1:])
}

// entryEnd is the end of the entry starting at lines[i], indented by ind:
// the lines after it indented more, and blank or comment lines between.
// sameIndentSeq also takes the lines at ind that are sequence items (a
// mapping's value may be a sequence at the key's own indentation).
func entryEnd(lines []string, i, ind int, sameIndentSeq bool) int {
	end := i + 1
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if skippable(l) {
			continue
		}
		in := indentOf(l)
		if in > ind || sameIndentSeq && in == ind && isSeqItem(l[in:]) {
			end = j + 1
			continue
		}
		break
	}
	// Trailing blank lines belong to it too (block scalars chomp them).
	for end < len(lines) && strings.TrimSpace(lines[end]) == "" {
		end++
	}
	return end
}

func parseMapping(lines []string, from, ind int) (Value, error) {
	out := Value{Kind: Map, Fields: map[string]Value{}}
	for i := from; i < len(lines); {
		l := lines[i]
		if skippable(l) {
			i++
			continue
		}
		if indentOf(l) != ind {
			return Value{}, &SyntaxError{Line: i + 1, Msg: "bad indentation of a mapping entry"}
		}
		key, rest, ok := splitKey(l[ind:])
		if !ok {
			return Value{}, &SyntaxError{Line: i + 1, Msg: "expected a key: value entry"}
		}
		if _, dup := out.Fields[key]; dup {
			return Value{}, &SyntaxError{Line: i + 1, Msg: "duplicated mapping key " + strconv.Quote(key)}
		}
		rest = strings.TrimSpace(rest)
		end := entryEnd(lines, i, ind, rest == "" || strings.HasPrefix(rest, "#"))
		v, err := parseValue(rest, lines[i+1:end])
		if err != nil {
			return Value{}, lineOf(err, i+1)
		}
		out.Keys = append(out.Keys, key)
		out.Fields[key] = v
		i = end
	}
	return out, nil
}

func parseSequence(lines []string, from, ind int) (Value, error) {
	out := Value{Kind: List, List: []Value{}}
	for i := from; i < len(lines); {
		l := lines[i]
		if skippable(l) {
			i++
			continue
		}
		if indentOf(l) != ind || !isSeqItem(l[ind:]) {
			return Value{}, &SyntaxError{Line: i + 1, Msg: "bad indentation of a sequence entry"}
		}
		end := entryEnd(lines, i, ind, false)
		rest := strings.TrimLeft(l[ind+1:], " \t")
		var v Value
		var err error
		if isSeqItem(rest) || isMapEntry(rest) {
			// "- key: value" or "- - x": a node indented where rest starts.
			inner := append([]string{strings.Repeat(" ", len(l)-len(rest)) + rest}, lines[i+1:end]...)
			v, err = parseBlock(inner)
		} else {
			v, err = parseValue(rest, lines[i+1:end])
		}
		if err != nil {
			return Value{}, lineOf(err, i+1)
		}
		out.List = append(out.List, v)
		i = end
	}
	return out, nil
}

// lineOf gives err a line when it has none.
func lineOf(err error, line int) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		if se.Line == 0 {
			return &SyntaxError{Line: line, Msg: se.Msg}
		}
		return err
	}
	return &SyntaxError{Line: line, Msg: "invalid YAML"}
}

// parseValue reads a value: first, the rest of its line after "key:" or
// "- "; more, the lines after it that belong to it.
func parseValue(first string, more []string) (Value, error) {
	first = strings.TrimSpace(first)
	if strings.HasPrefix(first, "#") {
		first = ""
	}
	switch {
	case blockHeader.MatchString(first):
		h := blockHeader.FindStringSubmatch(first)
		return str(blockScalar(h[1] == "|", h[2], more)), nil
	case strings.HasPrefix(first, `"`):
		return quoted(first, more, `"`)
	case strings.HasPrefix(first, "'"):
		return quoted(first, more, "'")
	case first == "" && len(nonBlank(more)) > 0:
		return parseBlock(more)
	case first == "":
		return Value{Kind: Null}, nil
	case first[0] == '[' || first[0] == '{':
		parts := []string{first}
		for _, l := range more {
			parts = append(parts, strings.TrimSpace(l))
		}
		return parseFlow(strings.Join(parts, " "))
	case strings.ContainsAny(first[:1], "&*!%@`,"):
		return Value{Kind: Other, Text: first}, nil
	}
	return plainScalar(first, more)
}

func str(s string) Value { return Value{Kind: String, Text: s} }

// typed is a plain scalar as YAML's core schema types it.
func typed(text string) Value {
	switch {
	case text == "" || text == "~" || text == "null" || text == "Null" || text == "NULL":
		return Value{Kind: Null}
	case text == "true" || text == "True" || text == "TRUE":
		return Value{Kind: Bool, Bool: true, Text: text}
	case text == "false" || text == "False" || text == "FALSE":
		return Value{Kind: Bool, Text: text}
	case nonString.MatchString(text):
		if n, ok := number(text); ok {
			return Value{Kind: Number, Num: n, Text: text}
		}
	}
	return str(text)
}

// number reads a plain scalar nonString matched as a number.
func number(text string) (float64, bool) {
	t := strings.ReplaceAll(text, "_", "")
	switch strings.TrimLeft(t, "+-") {
	case ".inf", ".Inf", ".INF":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case ".nan", ".NaN", ".NAN":
		return math.NaN(), true
	}
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0o") {
		n, err := strconv.ParseInt(t[2:], map[byte]int{'x': 16, 'o': 8}[t[1]], 64)
		return float64(n), err == nil
	}
	n, err := strconv.ParseFloat(t, 64)
	return n, err == nil
}
