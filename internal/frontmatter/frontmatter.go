// Package frontmatter reads the YAML front matter of Gemini CLI's
// Markdown files (skills' SKILL.md, agents' *.md), which js-yaml reads in
// Gemini CLI. The YAML is parsed by go.yaml.in/yaml/v3, whose cost is
// linear in the input and whose nesting stops at a depth of 10000, so a
// repository's file cannot make reading it slow; this package types the
// parsed nodes as js-yaml 4's default schema does (js-yaml 4.1.0's
// resolvers, ported). Mappings, lists and scalars: plain ones typed (null,
// booleans, numbers as js-yaml reads them, .5 and 0b101 and -0x10 among
// them, timestamps as Date), quoted and block ones strings. What YAML refuses is an error, and so are several documents,
// duplicated keys and keys that are not scalars. Anchors, aliases and
// tags are beyond what these files hold: such a value is Kind Other,
// which nobody reads as a string, and an alias is never expanded.
package frontmatter

import (
	"errors"
	"io"
	"math"
	"math/big"
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
	// Date is a plain scalar js-yaml reads as a timestamp (2024-01-01),
	// a Date in JavaScript: not a string. Text is as written.
	Date
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
	case Date:
		return "date" // zod's name
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

// typed is a plain scalar as js-yaml 4's default schema types it: its
// implicit types tried in its order, null, bool, int, float, timestamp
// (js-yaml 4.1.0's lib/type/*.js, lib/schema/default.js), the first that
// resolves the text taking it. The merge key (<<) is not typed: no
// front matter Gemini CLI reads has one.
func typed(text string) Value {
	switch {
	case text == "" || text == "~" || text == "null" || text == "Null" || text == "NULL":
		return Value{Kind: Null}
	case text == "true" || text == "True" || text == "TRUE":
		return Value{Kind: Bool, Bool: true, Text: text}
	case text == "false" || text == "False" || text == "FALSE":
		return Value{Kind: Bool, Text: text}
	case isYAMLInt(text):
		return Value{Kind: Number, Num: yamlInt(text), Text: text}
	case isYAMLFloat(text):
		return Value{Kind: Number, Num: yamlFloat(text), Text: text}
	case yamlDate.MatchString(text) || yamlTimestamp.MatchString(text):
		return Value{Kind: Date, Text: text}
	}
	return str(text)
}

// isYAMLInt is js-yaml's resolveYamlInteger: an optional sign, then
// 0b, 0x or 0o and digits of the base, or decimal digits; underscores
// anywhere after the prefix but not first in a decimal nor last.
func isYAMLInt(text string) bool {
	i := 0
	if i < len(text) && (text[i] == '-' || text[i] == '+') {
		i++
	}
	if i < len(text) && text[i] == '0' {
		if i+1 == len(text) {
			return true
		}
		i++
		var digit func(byte) bool
		switch text[i] {
		case 'b':
			digit = func(c byte) bool { return c == '0' || c == '1' }
		case 'x':
			digit = func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
		case 'o':
			digit = func(c byte) bool { return '0' <= c && c <= '7' }
		}
		if digit != nil {
			return digits(text[i+1:], digit)
		}
	}
	if i < len(text) && text[i] == '_' {
		return false
	}
	return digits(text[i:], func(c byte) bool { return '0' <= c && c <= '9' })
}

// digits reports whether s is digits and underscores, at least one
// digit, not ending in an underscore.
func digits(s string, digit func(byte) bool) bool {
	seen := false
	for i := range len(s) {
		switch c := s[i]; {
		case c == '_':
		case digit(c):
			seen = true
		default:
			return false
		}
	}
	return seen && !strings.HasSuffix(s, "_")
}

// yamlInt is js-yaml's constructYamlInteger of a text isYAMLInt accepts:
// the sign times JavaScript's parseInt of the digits in their base.
func yamlInt(text string) float64 {
	t := strings.ReplaceAll(text, "_", "")
	sign := 1.0
	if t[0] == '-' || t[0] == '+' {
		if t[0] == '-' {
			sign = -1
		}
		t = t[1:]
	}
	if t == "0" {
		return 0 // -0 too: js-yaml returns 0 before the sign counts
	}
	base := 10
	if len(t) > 2 && t[0] == '0' {
		switch t[1] {
		case 'b':
			base = 2
		case 'x':
			base = 16
		case 'o':
			base = 8
		}
		if base != 10 {
			t = t[2:]
		}
	}
	if base == 10 {
		n, _ := strconv.ParseFloat(t, 64) // correctly rounded, as parseInt's
		return sign * n
	}
	n, _ := new(big.Int).SetString(t, base)
	f, _ := new(big.Float).SetInt(n).Float64()
	return sign * f
}

// yamlFloat is js-yaml's YAML_FLOAT_PATTERN: a signed decimal with an
// optional fraction and exponent, an unsigned one starting with its
// point (.5), ±.inf, .nan.
var yamlFloatPattern = lazyregexp.New(`^(?:[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)

// isYAMLFloat is js-yaml's resolveYamlFloat: the pattern, not ending in
// an underscore.
func isYAMLFloat(text string) bool {
	return yamlFloatPattern.MatchString(text) && !strings.HasSuffix(text, "_")
}

// yamlFloat is js-yaml's constructYamlFloat: underscores dropped, the
// sign times parseFloat of the rest (±Infinity past a double's range).
func yamlFloat(text string) float64 {
	t := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	sign := 1.0
	if t[0] == '-' || t[0] == '+' {
		if t[0] == '-' {
			sign = -1
		}
		t = t[1:]
	}
	switch t {
	case ".inf":
		return sign * math.Inf(1)
	case ".nan":
		return math.NaN()
	}
	n, _ := strconv.ParseFloat(t, 64) // ±Inf with ErrRange, as parseFloat
	return sign * n
}

// js-yaml's YAML_DATE_REGEXP and YAML_TIMESTAMP_REGEXP: a plain scalar
// either matches is a Date in JavaScript.
var (
	yamlDate      = lazyregexp.New(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	yamlTimestamp = lazyregexp.New(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?$`)
)
