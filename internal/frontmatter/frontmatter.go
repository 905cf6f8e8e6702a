// Package frontmatter reads the YAML front matter of Gemini CLI's
// Markdown files (skills' SKILL.md, agents' *.md), which js-yaml reads in
// Gemini CLI. The YAML is parsed by go.yaml.in/yaml/v3, whose cost is
// linear in the input and whose nesting stops at a depth of 10000, so a
// repository's file cannot make reading it slow; this package types the
// parsed nodes as js-yaml's core schema does. Mappings, lists and scalars:
// plain ones typed (null, booleans, numbers), quoted and block ones
// strings. What YAML refuses is an error, and so are several documents,
// duplicated keys and keys that are not scalars. Anchors, aliases and
// tags are beyond what these files hold: such a value is Kind Other,
// which nobody reads as a string, and an alias is never expanded.
package frontmatter

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

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
// CLI's FRONTMATTER_REGEX, /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?/
// (0.61 bundle chunk-JDPZ4CE3.js:338444), does: the front matter ends at
// the first line starting with ---, and the body starts on the line after
// it (none when that line has more than ---). It looks for them with
// strings.Index: the regular expression costs a file of 1 MiB ten times
// what it costs one of 256 KiB.
func Split(content string) (front, body string, ok bool) {
	rest, ok := strings.CutPrefix(content, "---\n")
	if !ok {
		if rest, ok = strings.CutPrefix(content, "---\r\n"); !ok {
			return "", "", false
		}
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return "", "", false
	}
	front = strings.TrimSuffix(rest[:end], "\r")
	after := rest[end+len("\n---"):]
	if b, ok := strings.CutPrefix(after, "\n"); ok {
		body = b
	} else if b, ok := strings.CutPrefix(after, "\r\n"); ok {
		body = b
	}
	return front, body, true
}

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
	if !strings.HasSuffix(text, "\n") {
		// js-yaml ends the input with a line break, which a | or >
		// block scalar ending it keeps (Split leaves none).
		text += "\n"
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return Value{Kind: Null}, nil
	} else if err != nil {
		return Value{}, yamlError(err)
	}
	// js-yaml's load refuses a second document.
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return Value{}, yamlError(err)
		}
		return Value{}, &SyntaxError{Line: next.Line, Msg: "expected a single document"}
	}
	return convert(&doc)
}

// yamlError is the SyntaxError of an error of the YAML parser, whose
// only form is its text: "yaml: line 3: did not find expected ','".
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, after
			}
		}
	}
	if isParserProblem(msg) {
		// The parser's lines count from 0 (yaml/v3's decode.go adds 1
		// for the scanner's only), and line 0 goes unsaid.
		line++
	}
	return &SyntaxError{Line: line, Msg: msg}
}

// isParserProblem reports whether msg is an error of yaml/v3's parser,
// as opposed to its scanner (parserc.go). A switch, not a map: nothing
// is built at package initialisation.
func isParserProblem(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"did not find expected '-' indicator",
		"did not find expected <document start>",
		"did not find expected key",
		"did not find expected node content",
		"found duplicate %TAG directive",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// convert types n as js-yaml would. Its recursion is as deep as the
// document, which the parser stops at a depth of 10000.
func convert(n *yaml.Node) (Value, error) {
	if n.Kind == yaml.AliasNode || n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return Value{Kind: Other, Text: n.Value}, nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return Value{Kind: Null}, nil
		}
		return convert(n.Content[0])
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return str(n.Value), nil
		}
		return typed(n.Value), nil
	case yaml.SequenceNode:
		out := Value{Kind: List, List: make([]Value, 0, len(n.Content))}
		for _, item := range n.Content {
			v, err := convert(item)
			if err != nil {
				return Value{}, err
			}
			out.List = append(out.List, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := Value{Kind: Map, Fields: make(map[string]Value, len(n.Content)/2)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.Style&yaml.TaggedStyle != 0 {
				return Value{}, &SyntaxError{Line: k.Line, Msg: "a mapping's key must be a plain or quoted scalar"}
			}
			if _, dup := out.Fields[k.Value]; dup {
				return Value{}, &SyntaxError{Line: k.Line, Msg: "duplicated mapping key " + strconv.Quote(k.Value)}
			}
			v, err := convert(n.Content[i+1])
			if err != nil {
				return Value{}, err
			}
			out.Keys = append(out.Keys, k.Value)
			out.Fields[k.Value] = v
		}
		return out, nil
	}
	return Value{Kind: Other, Text: n.Value}, nil
}

func str(s string) Value { return Value{Kind: String, Text: s} }

// nonString are plain scalars YAML's core schema reads as another type.
var nonString = lazyregexp.New(`^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)

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
