package frontmatter

import (
	"strconv"
	"strings"
)

// parseFlow reads a flow collection, [a, b] or {k: v}, which s holds
// whole (a comment may follow it).
func parseFlow(s string) (Value, error) {
	p := flowParser{s: s}
	v, err := p.node()
	if err != nil {
		return Value{}, err
	}
	p.space()
	if rest := p.s[p.i:]; rest != "" && !strings.HasPrefix(rest, "#") {
		return Value{}, &SyntaxError{Msg: "unexpected " + strconv.Quote(rest) + " after a flow collection"}
	}
	return v, nil
}

type flowParser struct {
	s string
	i int
}

func (p *flowParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *flowParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *flowParser) node() (Value, error) {
	p.space()
	switch p.peek() {
	case '[':
		return p.collection(']')
	case '{':
		return p.collection('}')
	case '"', '\'':
		return p.quotedScalar()
	}
	return p.plain(), nil
}

// collection reads a sequence (close ']') or a mapping (close '}').
func (p *flowParser) collection(close byte) (Value, error) {
	p.i++ // the opening bracket
	v := Value{Kind: List, List: []Value{}}
	if close == '}' {
		v = Value{Kind: Map, Fields: map[string]Value{}}
	}
	for {
		p.space()
		if p.peek() == close {
			p.i++
			return v, nil
		}
		if p.peek() == 0 {
			return Value{}, &SyntaxError{Msg: "unterminated flow collection"}
		}
		item, err := p.node()
		if err != nil {
			return Value{}, err
		}
		p.space()
		if close == '}' {
			if item.Kind != String && item.Kind != Number && item.Kind != Bool {
				return Value{}, &SyntaxError{Msg: "a flow mapping's key must be a scalar"}
			}
			key := item.Text
			value := Value{Kind: Null}
			if p.peek() == ':' {
				p.i++
				if value, err = p.node(); err != nil {
					return Value{}, err
				}
				p.space()
			}
			if _, dup := v.Fields[key]; dup {
				return Value{}, &SyntaxError{Msg: "duplicated mapping key " + strconv.Quote(key)}
			}
			v.Keys = append(v.Keys, key)
			v.Fields[key] = value
		} else {
			v.List = append(v.List, item)
		}
		switch p.peek() {
		case ',':
			p.i++
		case close:
		default:
			return Value{}, &SyntaxError{Msg: "missing , in a flow collection"}
		}
	}
}

func (p *flowParser) quotedScalar() (Value, error) {
	q := p.s[p.i]
	for j := p.i + 1; j < len(p.s); j++ {
		switch {
		case q == '"' && p.s[j] == '\\':
			j++
		case q == '\'' && p.s[j] == '\'' && j+1 < len(p.s) && p.s[j+1] == '\'':
			j++
		case p.s[j] == q:
			body := p.s[p.i+1 : j]
			p.i = j + 1
			if q == '\'' {
				return str(strings.ReplaceAll(body, "''", "'")), nil
			}
			text, err := strconv.Unquote(`"` + body + `"`)
			if err != nil {
				return Value{}, &SyntaxError{Msg: "bad escape in a quoted string"}
			}
			return str(text), nil
		}
	}
	return Value{}, &SyntaxError{Msg: "unterminated quoted string"}
}

// plain reads a plain scalar up to the flow indicator ending it: a comma,
// a closing bracket, or ": ".
func (p *flowParser) plain() Value {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ',' || c == ']' || c == '}' || c == '[' || c == '{' {
			break
		}
		if c == ':' && (p.i+1 == len(p.s) || strings.ContainsRune(" \t,]}", rune(p.s[p.i+1]))) {
			break
		}
		p.i++
	}
	return typed(strings.TrimSpace(p.s[start:p.i]))
}
